// The agent tool run: a program of a task library, an agent spec, a MultiTool-CoT prompt or a trace run to its end,
// as `art run` runs it; the answer is the program written and the answer, with the calls made and the run's notes.
import { z } from 'zod';
import type { Runner } from '../engine/runner';
import { prepareRun } from '../launch/launch';
import { HEADLESS, parseRunOptions } from '../launch/options';
import { mayCallEndpoint } from '../launch/apiKey';
import { END_REASONS } from '../trace/vocabulary';
import { NOT_FOR_RUN_TOOL, runOptionShape } from './runOptions';
import { existingFile, fileOrActive, givenOrActive, withNotes } from './shapes';
import { defineTool } from './tool';

/** Each kind of repair to a chat reply, said once (every one is in the trace): `art run`'s lines, the tools' notes. */
export function sayRepairs(runner: Pick<Runner, 'on'>, traced: boolean, say: (line: string) => void): void {
  const repaired = new Set<string>();
  runner.on('repair', ({ n, repair }) => {
    if (repaired.has(repair.kind)) return;
    repaired.add(repair.kind);
    say(`request ${n}: the chat reply was repaired: ${repair.summary}${traced ? ' (every repair is in the trace)' : ''}`);
  });
}

const callShape = z.object({
  step: z.number(),
  tool: z.string(),
  input: z.string(),
  output: z.string().optional(),
  override: z.string().optional(),
  error: z.string().optional(),
});

export const run = defineTool({
  name: 'run',
  title: 'Run a program',
  description:
    'Run a program of a task library (.art), an agent spec (.agent), a MultiTool-CoT prompt or a trace (.jsonl) to its end, as `art run` does: returns the program written and the answer. Replays the recorded program (tools run again, no endpoint) unless an endpoint (baseURL and model, or art mcp\'s --base-url and --model; in the editor, its model settings) or mode "generate" is given; the key goes only to the origins the user allowed. Cancelling the request stops the run.',
  runsPrograms: true,
  userTools: true,
  input: { file: fileOrActive('The file to run'), ...runOptionShape(NOT_FOR_RUN_TOOL) },
  output: {
    status: z.enum(END_REASONS),
    answer: z.string().nullable(),
    program: z.string(),
    error: z.string().optional(),
    mode: z.enum(['generate', 'replay']),
    calls: z.array(callShape),
    requests: z.number(),
    trace: z.string().optional(),
    notes: z.array(z.string()),
  },
  editor: {
    displayName: 'ART: Run Program',
    referenceName: 'artRun',
    userDescription: 'Runs a program to its end and answers with the program written and its answer.',
    icon: '$(play)',
    invocation: i => `Running ${i.file ?? 'the program'}`,
    confirm: i => ({
      title: 'ART Studio: run the program?',
      message: `Runs ${i.file ?? 'the program of the active editor'} to its end: its tools run code and a live run calls the model.`,
    }),
  },
  run: async (input, host) => {
    const file = await existingFile(host, givenOrActive(host, input.file, 'file'), 'file');
    const { raw, notes } = await host.runOptions(input, file);
    const o = parseRunOptions(raw, host.label('file'));
    const { key, note } = await host.key(o, mayCallEndpoint(o));
    if (note) notes.push(note);
    const run = await prepareRun({
      ...o,
      apiKey: key,
      chatModel: await host.chatModel(o, `ART Studio runs ${file} with this model.`),
      telemetryEnv: host.telemetryEnv,
      trusted: host.trusted,
      ...HEADLESS,
      userToolsRefused: host.userToolsRefused,
      log: line => notes.push(line),
    });
    sayRepairs(run.runner, !!run.tracePath, line => notes.push(line));
    const stop = () => run.runner.stop();
    host.signal.addEventListener('abort', stop, { once: true });
    if (host.signal.aborted) stop();
    let result;
    try {
      result = await run.runner.run();
    } finally {
      host.signal.removeEventListener('abort', stop);
      await run.dispose();
    }
    const s = result.snapshot;
    const calls = s.calls.map(c => ({
      step: c.step,
      tool: c.tool,
      input: c.input,
      ...(c.output !== undefined ? { output: c.output } : {}),
      ...(c.override !== undefined ? { override: c.override } : {}),
      ...(c.error !== undefined ? { error: c.error } : {}),
    }));
    const end =
      result.reason === 'finished'
        ? `Answer: ${result.answer ?? '(none)'}`
        : `the run ended (${result.reason})${result.error ? `: ${result.error}` : ''}${result.answer ? `; answer so far: ${result.answer}` : ''}`;
    const allNotes = [...run.toolProblems, ...notes];
    return {
      text: withNotes(allNotes, `${s.text}${s.text.endsWith('\n') ? '' : '\n'}\n${end}`),
      structured: {
        status: result.reason,
        answer: result.answer,
        program: s.text,
        ...(result.error !== undefined ? { error: result.error } : {}),
        mode: o.mode,
        calls,
        requests: s.requests,
        ...(run.tracePath ? { trace: run.tracePath } : {}),
        notes: allNotes,
      },
    };
  },
});
