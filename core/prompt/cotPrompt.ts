// A MultiTool-CoT prompt file (`NAME.cot.txt`, Inaba et al. 2023): plain text, a few-shot chain-of-thought prompt
// whose examples call tools with inline triggers (`12 × 0.75 <<Calculator>> 9`), and one line with `%s` where the
// question goes (e.g. `Q: %s` then `A:`). The prompt ends where the model starts its chain of thought; the text of
// the `%s` line before `%s` (`Q:`), written again, ends the run. Its recorded answer (`NAME.answer.txt`) is the
// question on the first line, then what the model wrote; the word after each trigger (without a closing full stop or comma) is the tool's output, a slot
// the tool fills again when it is replayed. The run's answer is read the way the examples state it (their last
// sentences' common start, `So the answer is`; see answerMarkerOf).
import { answerMarkerOf, type MultiToolRunSpec } from '../protocols/multitoolProtocol';

export class CotPromptError extends Error {}

export interface CotPrompt {
  /** The prompt with the question in place of `%s`, up to where the model starts. */
  prompt: string;
  /** The filled `%s` line and what follows it: where a recording starts. */
  tail: string;
  spec: MultiToolRunSpec;
}

/** The prompt file `text` with `question` in its `%s` slot. */
export function fillCotPrompt(text: string, question: string): CotPrompt {
  const src = text.replace(/\r\n?/g, '\n').replace(/\s+$/, '');
  const at = src.indexOf('%s');
  if (at < 0) throw new CotPromptError('the prompt has no `%s` line where the question goes: end it with e.g. `Q: %s` and `A:`');
  if (src.indexOf('%s', at + 2) >= 0) throw new CotPromptError('the prompt has more than one `%s`: keep one, where the question goes');
  const lineStart = src.lastIndexOf('\n', at) + 1;
  const lead = src.slice(lineStart, at).trim();
  const q = question.replace(/\s+/g, ' ').trim();
  const prompt = src.slice(0, at) + q + src.slice(at + 2);
  return {
    prompt,
    tail: prompt.slice(lineStart),
    spec: { prompt, endMarkers: lead ? [`\n${lead}`] : [], answerMarker: answerMarkerOf(exampleAnswers(src.slice(0, lineStart), lead)) },
  };
}

/** The examples' answers in the prompt before the question: each block from a `lead` line (`Q:`) to the next, its last line. */
function exampleAnswers(before: string, lead: string): string[] {
  if (!lead) return [];
  const blocks = before.split('\n').reduce<string[][]>((acc, line) => {
    if (line.trim().startsWith(lead)) acc.push([]);
    else if (acc.length && line.trim()) acc[acc.length - 1].push(line);
    return acc;
  }, []);
  return blocks.flatMap(b => (b.length ? [b[b.length - 1]] : []));
}
