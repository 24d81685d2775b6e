// "Show Prompt": the exact prompt of a run (what the model is or was sent) with the demonstrations in it and why each
// was chosen. Task selection (selection.ts, core/evaluation/taskSelection.ts) gives every demonstration its `why`; the runner writes
// them with the prompt into the trace's `run` record; this module turns a prompt and its demonstrations into the
// text the CLI prints (`art prompt`) and VS Code shows ("ART: Show Prompt"). Types only: no runner, no model client,
// so the extension's own bundle can format a report.
import { plural } from '../common/counts';
import type { PromptDemonstration, RunKind, SelectionWhy } from '../trace/vocabulary';

export interface PromptReport {
  kind: RunKind;
  /** What ran: the program's title and file. */
  title?: string;
  program?: string;
  /** The model the prompt is (or was) sent to. */
  model?: string;
  /** Everything before the generated text: what the first request sends. */
  prompt: string;
  /** The end of `prompt` that is the run's own program (the new task). */
  header: string;
  /** ART runs: the demonstrations in the prompt, in prompt order. */
  demonstrations?: PromptDemonstration[];
  /** A run under way or ended: what the model wrote after the prompt (each later request sends prompt + this). */
  generated?: string;
  /** Which sample of a self-consistency run (1-based), and of how many. */
  sample?: { index: number; of: number };
}

/** One line that says why a demonstration was chosen. */
export function describeWhy(why: SelectionWhy | undefined): string {
  if (!why) return 'chosen beforehand (no reason recorded)';
  switch (why.strategy) {
    case 'same-file':
      return 'same-file: a program of the library being run';
    case 'similar':
      return why.rank === null
        ? 'similar: no shared term; fills the prompt up to k in file order'
        : `similar: rank ${why.rank}, BM25 score ${why.score.toFixed(2)}, shared terms: ${listTerms(why.terms)}`;
    case 'llm':
      return why.logprob !== null
        ? `llm: P(Yes) = ${why.pYes.toFixed(3)} (log-probability ${why.logprob.toFixed(3)} of the answer "${why.answer}")`
        : `llm: the model answered "${why.answer}" (no log-probabilities: P(Yes) = ${why.pYes})`;
    case 'best-cluster':
      return `best-cluster: ${baseName(why.file)} answered ${why.correct} of ${plural(why.tried, 'labelled example')} right, the most of the folder's files`;
  }
}

/** The line that marks where the prompt starts in a report: everything after it is the prompt, character for character. */
export const PROMPT_MARKER = '======== the prompt, exactly as sent ========';
export const GENERATED_MARKER = '======== generated so far (each later request sends the prompt and this) ========';

/** The report as text: a header (what ran, the demonstrations and why), then the prompt exactly as sent. */
export function formatPromptReport(r: PromptReport): string {
  const lines: string[] = [];
  const what = [r.title, r.program ? baseName(r.program) : undefined].filter(Boolean).join(' · ');
  lines.push(`Prompt of ${what || `a ${r.kind} run`}${r.sample ? ` (sample ${r.sample.index} of ${r.sample.of})` : ''}`);
  if (r.model) lines.push(`Model: ${r.model}`);
  const promptLines = r.prompt.split('\n').length;
  const headerLine = promptLines - r.header.split('\n').length + 1;
  lines.push(`${r.prompt.length} characters, ${promptLines} lines; the new task starts at line ${headerLine} of the prompt.`);
  const demos = r.demonstrations;
  if (demos) {
    lines.push('');
    lines.push(demos.length ? `Demonstrations (${demos.length}), in prompt order:` : 'Demonstrations: none (the prompt has only the new task).');
    const width = String(demos.length).length;
    demos.forEach((d, i) => {
      const where = d.file ? `${baseName(d.file)}:${d.line}` : `line ${d.line}`;
      lines.push(`${String(i + 1).padStart(width)}. ${d.title} (${where}, program ${d.index})`);
      lines.push(`${' '.repeat(width + 2)}why: ${describeWhy(d.why)}`);
    });
  }
  lines.push('', PROMPT_MARKER, r.prompt);
  if (r.generated) lines.push(GENERATED_MARKER, r.generated);
  return `${lines.join('\n')}\n`;
}

/** The report of a recorded run, from its trace records (its `run` record); throws when there is none. */
export function promptReportFromTrace(records: readonly { t: string }[], program?: string): PromptReport {
  const run = records.find(r => r.t === 'run') as
    | {
        kind: RunKind;
        model?: string;
        prompt: string;
        header: string;
        demonstrations?: PromptDemonstration[];
        sample?: { index: number; of: number };
      }
    | undefined;
  if (!run) throw new Error('the trace has no "run" record: it is not the trace of a run');
  const end = [...records].reverse().find(r => r.t === 'end') as { text?: string } | undefined;
  const generated = end?.text !== undefined && end.text.startsWith(run.header) ? end.text.slice(run.header.length) : undefined;
  return {
    kind: run.kind,
    program,
    model: run.model,
    prompt: run.prompt,
    header: run.header,
    demonstrations: run.demonstrations,
    generated: generated || undefined,
    sample: run.sample,
  };
}

/** The shared terms, the first 12 of them (the report is read, not parsed; the trace keeps them all). */
function listTerms(terms: string[]): string {
  if (!terms.length) return '(none)';
  const shown = terms.slice(0, 12).join(', ');
  return terms.length > 12 ? `${shown} (+${terms.length - 12} more)` : shown;
}

function baseName(p: string): string {
  return p.replace(/^.*[\\/]/, '');
}
