// The agent tool show_prompt: the exact prompt a run of a file sends, with the demonstrations in it and why each was
// chosen, without running it (as `art prompt`); for a trace, the prompt it recorded. Given no file, in the editor: the
// prompt of the debugged run the person sees. Building a prompt starts nothing (no command tool, no MCP server).
import { z } from 'zod';
import { parseRunOptions } from '../launch/options';
import { promptAsksModel } from '../launch/apiKey';
import { promptOfRun } from '../launch/promptOfRun';
import { describeWhy, formatPromptReport } from '../prompt/promptReport';
import { NOT_FOR_PROMPT, runOptionShape } from './runOptions';
import { existingFile, fileOrActive, givenOrActive } from './shapes';
import { defineTool } from './tool';

export const showPrompt = defineTool({
  name: 'show_prompt',
  title: 'Show the prompt of a run',
  description:
    'The exact prompt a run of the file sends, with the demonstrations in it and why each was chosen, without running it (as `art prompt`); for a trace (.jsonl), the prompt it recorded; in the editor, given no file during a debug session, the prompt of the debugged run. Starts nothing: no command tool or MCP server of the tool file.',
  input: { file: fileOrActive('The .art, .agent or MultiTool-CoT file, or a run trace (.jsonl)'), ...runOptionShape(NOT_FOR_PROMPT) },
  output: {
    kind: z.string(),
    title: z.string().optional(),
    program: z.string().optional(),
    model: z.string().optional(),
    prompt: z.string(),
    header: z.string(),
    demonstrations: z.array(z.object({ file: z.string().optional(), index: z.number(), title: z.string(), line: z.number(), why: z.string() })),
    generated: z.string().optional(),
  },
  editor: {
    displayName: 'ART: Show Prompt',
    referenceName: 'artPrompt',
    userDescription: "The exact prompt of a run: the debugged run's, else that of a program.",
    icon: '$(comment-discussion)',
    invocation: i => (i.file ? `Building the prompt of ${i.file}` : 'Reading the prompt of the run'),
    confirm: () => ({
      title: 'ART Studio: build the prompt?',
      message: 'Building the prompt of a program may call the model (when demonstrations are chosen by it).',
    }),
  },
  run: async (input, host) => {
    if (input.file === undefined && host.sessions.prompt) {
      const fromSession = await host.sessions.prompt();
      if (fromSession !== undefined) return { text: fromSession };
    }
    const file = await existingFile(host, givenOrActive(host, input.file, 'file'), 'file');
    const { raw, notes } = await host.runOptions(input, file);
    const o = parseRunOptions(raw, host.label('file'));
    const { key, note } = await host.key(o, promptAsksModel(o));
    for (const line of [...notes, ...(note ? [note] : [])]) host.log(line);
    const report = await promptOfRun({
      ...o,
      apiKey: key,
      chatModel: promptAsksModel(o)
        ? await host.chatModel(o, `ART Studio asks this model which demonstrations go into the prompt of ${file}.`)
        : undefined,
      trusted: host.trusted,
      log: line => host.log(line),
    });
    const { sample: _sample, demonstrations, ...rest } = report;
    const structured = { ...rest, demonstrations: (demonstrations ?? []).map(d => ({ ...d, why: describeWhy(d.why) })) };
    const text = formatPromptReport(report);
    await host.views?.showText(`Prompt of ${report.title ?? file}`, text);
    return { text, structured: JSON.parse(JSON.stringify(structured)) as Record<string, unknown> };
  },
});
