// Self-consistency: `samples: N` prepares N runs of one configuration (each its own Runner, model client, tools and
// trace: sample k of `RUN.jsonl` writes `RUN.sample-k.jsonl`, its `run` record saying which sample it is), runs them
// concurrently, and votes on the normalised answer once all have ended; the vote goes into every sample's trace (a
// `vote` record after its `end`). The shells (`art run`, the debug adapter, where each sample is a thread) read each
// sample's state from its Runner; nothing here keeps a copy of it.
import { prepareRun } from '../launch/launch';
import { LaunchError } from '../launch/options';
import type { PreparedRun, RunConfig } from '../launch/session';
import { normaliseAnswer, vote } from '../evaluation/eval';
import type { EndReason } from '../trace/vocabulary';
import type { RunState } from '../engine/types';

/** Sample k's trace beside the one asked for: `RUN.jsonl` → `RUN.sample-k.jsonl`. */
export function sampleTracePath(trace: string, index: number): string {
  return /\.jsonl$/i.test(trace) ? trace.replace(/\.jsonl$/i, `.sample-${index}.jsonl`) : `${trace}.sample-${index}.jsonl`;
}

/** Prepares `n` samples of `config` (a LaunchError for a configuration that cannot have several). */
export async function prepareSamples(config: RunConfig, n: number): Promise<PreparedRun[]> {
  if (config.from) throw new LaunchError('samples: "from" would answer every sample from the same trace, so all would be the same run: leave it out');
  const runs: PreparedRun[] = [];
  try {
    for (let index = 1; index <= n; index++) {
      const run = await prepareRun({
        ...config,
        trace: config.trace ? sampleTracePath(config.trace, index) : undefined,
        // A restart's previous records would make every sample the previous one.
        cache: undefined,
        sample: { index, of: n },
      });
      if (run.language !== 'art' && run.language !== 'agent' && run.language !== 'multitool') {
        await run.dispose();
        throw new LaunchError(
          'samples: a trace replays one recorded run; self-consistency runs a program (.art), an agent or a MultiTool-CoT prompt',
        );
      }
      runs.push(run);
    }
  } catch (e) {
    await Promise.all(runs.map(r => r.dispose()));
    throw e;
  }
  return runs;
}

/** Where one sample stands: running or paused (its answer so far), or ended (how, and its answer). */
export interface SampleState {
  /** 1-based. */
  index: number;
  state: RunState;
  /** The answer written so far (a finished sample: its answer). */
  answer: string | null;
  reason?: EndReason;
}

/** Each sample's state, read from its runner. */
export function sampleStates(runs: readonly PreparedRun[]): SampleState[] {
  return runs.map((run, i) => {
    const r = run.runner;
    const ended = r.ended;
    return {
      index: i + 1,
      state: r.state,
      answer: ended ? ended.answer : r.protocol.answer(r.text.slice(r.protocol.header.length)),
      reason: ended?.reason,
    };
  });
}

export interface Tally {
  /** The most frequent normalised answer of the samples that finished; null when none did (yet). */
  answer: string | null;
  /** How many finished samples gave it. */
  agree: number;
  /** How many samples finished with an answer. */
  answered: number;
  of: number;
}

/** The vote over the samples that finished (a sample still running does not count yet). */
export function tally(states: readonly SampleState[]): Tally {
  const answers = states.map(s => (s.reason === 'finished' ? s.answer : null));
  const answer = vote(answers);
  const agree = answer === null ? 0 : answers.filter(a => a !== null && normaliseAnswer(a) === normaliseAnswer(answer)).length;
  return { answer, agree, answered: answers.filter(a => a !== null).length, of: states.length };
}

/** Once every sample ended: the vote, written into every sample's trace. */
export function recordVote(runs: readonly PreparedRun[]): Tally {
  const states = sampleStates(runs);
  const t = tally(states);
  const samples = states.map((s, i) => ({ index: s.index, answer: s.answer, reason: s.reason ?? 'stopped', trace: runs[i].tracePath }));
  for (const run of runs) run.runner.writeTrace({ t: 'vote', at: Date.now(), answer: t.answer, agree: t.agree, of: t.of, samples });
  return t;
}
