// A MultiTool-CoT prompt's recorded answer (`NAME.answer.txt`) as a replay: the question on its first line, then what
// the model wrote, where the word after each trigger is a slot the tool fills again when it is replayed.
import { CotPromptError, type CotPrompt } from '../prompt/cotPrompt';
import { ContinuationScript, triggerParts } from './script';

/** A recorded answer: the question (first line) and the model's continuation as a replay script. */
export function cotRecording(answer: string, prompt: (question: string) => CotPrompt): { question: string; script: ContinuationScript } {
  const text = answer.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '');
  const nl = text.indexOf('\n');
  const question = (nl < 0 ? text : text.slice(0, nl)).trim();
  const body = nl < 0 ? '' : text.slice(nl + 1).trim();
  if (!question) throw new CotPromptError('the first line must be the question the recorded answer answers');
  if (!body) throw new CotPromptError("the recorded answer is empty: write the model's chain of thought after the question's line");
  const parts = triggerParts(` ${body}`);
  return {
    question,
    script: new ContinuationScript(
      prompt(question).tail,
      parts.filter(p => p.kind === 'slot' || p.text.length > 0),
    ),
  };
}
