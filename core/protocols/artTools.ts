// ART programs over the tools API (core/model/toolsApi.ts): how the text so far reads as a dialogue and how a
// function call is written as a tool step. Both read the text only, so the request of a given text is always the
// same one (the request cache, replay and time travel rely on it).
//
// The model's part starts after the `Q1:` of the last program in the text (the new task, after the last `----`);
// before it, the demonstrations stay ART text in the user message (before the first call, the whole text is, as with
// the chat API). In the model's part, each tool step whose output
// line is complete (`Qk: [tool] instruction` / `#k: output`) is a call and its `tool` message; the text between two
// such steps (steps the model answered, `Qk:` markers) is the assistant's text before the call; what follows the last
// output is a final assistant message. A call is written `Qk: [tool] instruction` (k the next step number, or the
// open `Qk:` the text ends with) followed by `\n#`, the answer marker the ART stops end a request at: the runner's
// ART protocol then takes it for a tool call, as for a step the model wrote as text.
import { normalizeName } from '../art/ast';
import { nextSeparator } from '../art/lines';
import type { OfferedTool, ToolDialogue, ToolProgram, ToolTurn } from '../model/toolsApi';
import { ArtScanner } from './artScan';

/** Where the model's part of `text` starts (after the last program's `Q1:`), or -1 when the text has none. */
export function artModelPartStart(text: string): number {
  let from = 0;
  for (let sep = nextSeparator(text, 0); sep;) {
    const nl = text.indexOf('\n', sep.end);
    if (nl < 0) return -1;
    from = nl + 1;
    sep = nextSeparator(text, from);
  }
  const m = /(?:^|\n)Q1[ \t]*[:：]/.exec(text.slice(from));
  return m ? from + m.index + m[0].length : -1;
}

export function artToolProgram(tools: readonly OfferedTool[]): ToolProgram {
  const offered = new Set(tools.map(t => normalizeName(t.name)));
  const isTool = (name: string | null) => !!name && offered.has(normalizeName(name));
  return {
    tools,
    dialogue(text: string): ToolDialogue | null {
      const start = artModelPartStart(text);
      if (start < 0) return null;
      const part = text.slice(start);
      const steps = new ArtScanner('Q1:').scan(part).steps;
      const turns: ToolTurn[] = [];
      let done = 0;
      steps.forEach((s, i) => {
        if (!isTool(s.name) || !s.answerSpan || s.answer === null) return;
        // A tool step is a call once its output line is there: an output, or the text going on past its line.
        const complete = s.answer.trim() !== '' || i < steps.length - 1 || part.slice(s.answerSpan.end).includes('\n');
        if (!complete) return;
        const lineStart = i === 0 ? 0 : s.querySpan.start;
        turns.push({ text: trimLines(part.slice(done, lineStart)), tool: s.name!, instruction: s.instruction.trim(), output: s.answer.trim() });
        const nl = part.indexOf('\n', s.answerSpan.end);
        done = nl < 0 ? part.length : nl + 1;
      });
      // No call yet: the text so far is the user message, as with the chat API.
      if (!turns.length) return { prompt: text, turns, tail: '' };
      return { prompt: text.slice(0, start), turns, tail: trimLines(part.slice(done)) };
    },
    callText(text: string, tool: string, instruction: string): string {
      const call = `[${tool}] ${instruction.trim().replace(/\s*\n\s*/g, ' ')}\n#`;
      const open = /(?:^|\n)Q\d+[ \t]*[:：]([ \t]*)$/.exec(text);
      if (open) return (open[1] ? '' : ' ') + call;
      const start = artModelPartStart(text);
      const steps = start < 0 ? [] : new ArtScanner('Q1:').scan(text.slice(start)).steps;
      const k = (steps.at(-1)?.number ?? 0) + 1;
      return `${text === '' || text.endsWith('\n') ? '' : '\n'}Q${k}: ${call}`;
    },
  };
}

/** Text between two calls without the line breaks around it. */
const trimLines = (s: string) => s.replace(/^\n+/, '').replace(/\s+$/, '');
