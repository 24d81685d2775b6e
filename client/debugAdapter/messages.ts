// What the adapter says in words: the run's first line (the mode and why), the line of a run that did not finish,
// a launch error, a run the user chose not to start, a breakpoint's message, and the names of the documents a run's programs are shown in.
import { Breakpoint, OutputEvent } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { LaunchError } from '../../core/launch/options';
import type { PreparedRun } from '../../core/launch/session';
import type { RequestReasoning, RunResult } from '../../core/engine/types';
import { plural } from '../../core/common/counts';

/**
 * The URIs of the documents of a run's programs (one per sample), in `scheme`: `NAME (run N).art-run`, N counted
 * across the sessions of this process, so no two runs share a document.
 */
export function runDocuments(scheme: string, name: string, kind: string, samples: number, number: number): Map<number, string> {
  const clean = name.replace(/[\\/:*?"<>|#%]+/g, ' ').trim() || 'run';
  const ext = kind === 'art' ? 'art-run' : 'txt';
  const documents = new Map<number, string>();
  for (let i = 1; i <= samples; i++) {
    const sample = samples > 1 ? `, sample ${i}` : '';
    documents.set(i, `${scheme}:/${encodeURIComponent(`${clean} (run ${number}${sample}).${ext}`)}`);
  }
  return documents;
}

export function withMessage(bp: Breakpoint, message: string): DebugProtocol.Breakpoint {
  const b = bp as DebugProtocol.Breakpoint;
  b.message = message;
  return b;
}

/**
 * The run's first line: the mode and why (`reason`: the client's account of its choice; else the launch
 * configuration's "mode"), and where a replay goes once it departs from its recording.
 */
export function modeLine(
  run: PreparedRun,
  options: { mode: 'generate' | 'replay'; model?: string; baseURL?: string },
  reason: string | undefined,
  samples: number,
): string {
  const live = options.model && options.baseURL ? `${options.model} at ${options.baseURL}` : undefined;
  const why = ` (${reason ?? 'the launch configuration\'s "mode"'})`;
  const of = samples > 1 ? `${samples} samples of ${run.title}` : run.title;
  if (run.language === 'trace') return `Replay of the run recorded in ${basename(run.path)}: ${of}; the tools run again`;
  if (options.mode === 'generate') return `Live: ${live ?? run.model.id} writes ${of}${why}`;
  return `Replay: ${of} from its recording${why}; the tools run again, ${
    live
      ? `and once the run departs from the recording ${live} writes the rest live`
      : 'and the run stops where it departs from the recording (no model is set)'
  }`;
}

/** The Debug Console's line for the first chat reply repair of a kind (`sample`: of a self-consistency run). */
export function repairLine(request: number, summary: string, sample: number | undefined, traced: boolean): string {
  const who = sample !== undefined ? `, sample ${sample}` : '';
  return `\n[request ${request}${who}] the chat reply was repaired: ${summary}${traced ? ' (every repair is in the trace)' : ''}\n`;
}

/**
 * A run's reasoning at its end, one collapsed group per request (`[request 1] reasoning, 61 characters`), so a run that
 * never paused (where the Variables view shows it) still shows what the model thought.
 */
export function reasoningEvents(reasoning: readonly RequestReasoning[] | undefined, who: string): DebugProtocol.OutputEvent[] {
  const event = (text: string, group?: 'startCollapsed' | 'end') => {
    const e = new OutputEvent(text, 'console') as DebugProtocol.OutputEvent;
    if (group) e.body.group = group;
    return e;
  };
  return (reasoning ?? [])
    .filter(r => r.text.trim())
    .flatMap(r => [
      event(`${who}[request ${r.request}] reasoning, ${plural(r.text.trim().length, 'character')}\n`, 'startCollapsed'),
      event(`${r.text.trim()}\n`),
      event('', 'end'),
    ]);
}

/** Where the run's traces go (and how many samples vote), or '' when it writes none. */
export function tracesLine(runs: PreparedRun[]): string {
  if (runs.length > 1)
    return `${runs.length} samples (threads 1-${runs.length}) voting on the answer; traces → ${runs.map(r => r.tracePath && basename(r.tracePath)).join(', ')}`;
  return runs[0].tracePath ? `Trace → ${runs[0].tracePath}` : '';
}

/**
 * How a run that did not finish ended, in one line: the reason and the runner's account of it (a model that made no
 * progress or wrote no program says what it sent and what was expected), never more than one line.
 */
export function endLine(result: RunResult): string {
  const error = result.error?.replace(/\s*\n\s*/g, ' ');
  return `The run ended (${result.reason})${error ? `: ${error}` : ''}`;
}

/** What the Debug Console says at a run's end: the answer (after `lead`), or why it ended; `who` names a sample. */
export function endOutput(result: RunResult, who: string, tokens: string, lead: string): { text: string; category: 'console' | 'stderr' } {
  if (result.reason === 'finished') return { text: `${lead}${who}Answer: ${result.answer ?? '(none)'}\n(${tokens})\n`, category: 'console' };
  return {
    text: `\n${who}${endLine(result)}${result.answer ? `; answer so far: ${result.answer}` : ''} (${tokens})\n`,
    category: result.reason === 'stopped' ? 'console' : 'stderr',
  };
}

/** The user chose that the run not start (Cancel when asked about the key's host): a console line, not an error to show. */
export class RunNotStarted extends Error {
  get line(): string {
    return `The run did not start: ${this.message}.`;
  }
}

export function launchMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  // `format` treats {name} as a placeholder.
  return (e instanceof LaunchError ? m : `the run could not start: ${m}`).replace(/[{}]/g, c => (c === '{' ? '(' : ')'));
}

export function basename(p: string): string {
  return p.replace(/^.*[\\/]/, '');
}
