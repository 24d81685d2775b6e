// Best-first search over steps (the LLM-programs paper's tree search, run to a budget): every node is a pause of
// the run (the start, a tool call's output, the next step); expanding a node asks the model for k continuations
// of its next step (runner.alternatives), each a child scored by the average negative log-likelihood of all the
// text the model wrote on its path (by vote when the endpoint returns no logprobs: the share of samples that did not
// write it, averaged over the path). The frontier's best node is expanded next; the search stops when the best node
// is a program that reached its answer (`Ans:`, `[EOQ]`, the agent's end) or when the budget of model calls is
// spent. Nodes are reached with the runner's own machinery: a saved pause (savePoint/goTo) and the sampled text
// streamed again (continueWith), so nothing is asked of the model twice and tools run as in a normal run.
//
// The tree is written to the run history: the chosen path as the run's trace (its records, as the run wrote them on
// the way to each node) and each other explored node as a branch of it, with its own trace beside the run's.
import { makeOwnedFolder } from '../common/ownedFiles';
import { basename, dirname, join } from 'node:path';
import type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient } from '../model/types';
import type { Runner } from '../engine/runner';
import type { RunPoint } from '../engine/checkpoints';
import { TraceWriter } from '../trace/trace';
import type { Alternative } from '../trace/vocabulary';
import type { PauseInfo, RunResult } from '../engine/types';
import type { TraceRecord } from '../trace/schema';

export interface SearchOptions {
  /** Continuations sampled per expansion. */
  k: number;
  /** Model calls the search may make in all (each sampled continuation is one; so is any other request of the run). */
  budget: number;
  /** One line per expansion and at the end. */
  progress?: (line: string) => void;
}

export interface SearchNode {
  id: number;
  parent: SearchNode | null;
  depth: number;
  /** The continuation that led here from the parent (the root has none). */
  alt?: Alternative & { index: number };
  /** Lower is better: the path's average NLL, or its average share of disagreeing samples (by vote). */
  score: number;
  children: SearchNode[];
  /** Reached: the run paused here (or ended here), with the records it wrote on the way from the parent. */
  reached: boolean;
  expanded: boolean;
  /** The pause the run made here. */
  pause?: PauseInfo;
  /** The program text as the run goes on from that pause (a tool's output appended). */
  text?: string;
  /** Where the run ended, when it ended here. */
  end?: RunResult;
  /** The step the run paused at here. */
  step: number;
  // Path sums the score is made of.
  nllSum: number;
  tokens: number;
  voteSum: number;
  steps: number;
}

export interface SearchResult {
  result: RunResult;
  /** Nodes expanded (alternatives sampled at). */
  expanded: number;
  /** Nodes the run reached (the root included). */
  reached: number;
  /** Nodes sampled in all (the root included). */
  nodes: number;
  /** Model calls made, as the model client counted them. */
  calls: number;
  budget: number;
  scoredBy: 'nll' | 'vote';
  /** The node the run ended at. */
  chosen: SearchNode;
  /** Whether the budget ran out before the best node was a program with its answer. */
  budgetSpent: boolean;
  root: SearchNode;
}

/** Thrown by the budgeted model once the budget is spent. */
export class BudgetSpent extends Error {}

/** A model client that counts every call (a request with n samples is n) and refuses the calls past the budget. */
export class BudgetedModel implements ModelClient {
  calls = 0;
  readonly id: string;
  readonly honoursStop: boolean;
  recordedAnswer?: (instruction: string) => string | undefined;
  completeMany?: ModelClient['completeMany'];
  addRetryListener?: ModelClient['addRetryListener'];

  constructor(
    private readonly model: ModelClient,
    readonly budget: number,
  ) {
    this.id = model.id;
    this.honoursStop = model.honoursStop;
    if (model.recordedAnswer) this.recordedAnswer = i => model.recordedAnswer!(i);
    if (model.completeMany)
      this.completeMany = (req: CompletionRequest, n: number) => {
        this.take(n);
        return model.completeMany!(req, n);
      };
    if (model.addRetryListener) this.addRetryListener = fn => model.addRetryListener!(fn);
  }

  get left(): number {
    return this.budget - this.calls;
  }

  private take(n: number): void {
    if (this.calls + n > this.budget)
      throw new BudgetSpent(`the search's budget of ${this.budget} model calls is spent (${this.calls} made, ${n} more asked for)`);
    this.calls += n;
  }

  async *stream(req: CompletionRequest): AsyncGenerator<CompletionChunk, CompletionResult, void> {
    this.take(1);
    return yield* this.model.stream(req);
  }

  complete(req: CompletionRequest): Promise<CompletionResult> {
    this.take(1);
    return this.model.complete(req);
  }
}

type Stop = { pause: PauseInfo; end?: undefined } | { end: RunResult; pause?: undefined };

/** The next pause or the end of the run (listen before the action that leads there takes effect). */
function nextStop(runner: Runner): Promise<Stop> {
  return new Promise(resolve => {
    const onPause = (pause: PauseInfo) => done({ pause });
    const onEnd = (end: RunResult) => done({ end });
    const done = (s: Stop) => {
      runner.off('paused', onPause);
      runner.off('end', onEnd);
      resolve(s);
    };
    runner.on('paused', onPause);
    runner.on('end', onEnd);
  });
}

const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : String(x));

/**
 * The search over a prepared run. `runner` must pause at its start (stopOnEntry) and ask `model` (a BudgetedModel);
 * `records` is the live list of the records it writes (PreparedRun.records). Tools run as in a normal run.
 */
export class StepSearch {
  private readonly points = new Map<SearchNode, RunPoint>();
  /** Where each reached node's records are: its way from the parent, and its alternatives record. */
  readonly segments = new Map<SearchNode, { from: number; to: number; sampled?: number; checkpoint: number; tail?: [number, number] }>();
  private current: SearchNode | null = null;
  private nextId = 0;
  private scoredBy: 'nll' | 'vote' | null = null;

  constructor(
    readonly runner: Runner,
    readonly model: BudgetedModel,
    readonly records: readonly TraceRecord[],
    readonly opts: SearchOptions,
  ) {
    if (!Number.isInteger(opts.k) || opts.k < 1 || opts.k > 16) throw new Error('search: k must be a whole number from 1 to 16');
    if (!Number.isInteger(opts.budget) || opts.budget < 1) throw new Error('search: the budget must be a whole number of model calls, at least 1');
  }

  async run(): Promise<SearchResult> {
    // Listening before the run starts: it pauses at its start at once.
    const first = nextStop(this.runner);
    const running = this.runner.run();
    try {
      return await this.search(first, running);
    } catch (e) {
      // A request or a tool that failed past the runner (the endpoint gone): end the run, then say why.
      this.runner.stop();
      await running;
      throw e;
    }
  }

  private async search(first: Promise<Stop>, running: Promise<RunResult>): Promise<SearchResult> {
    const runner = this.runner;
    const start = await Promise.race([first, running.then(end => ({ end }) as Stop)]);
    if (!start.pause) throw new Error(`search: the run did not pause at its start (it ended: ${start.end.reason}); it needs stopOnEntry`);
    const root = this.node(null);
    root.reached = true;
    root.pause = start.pause;
    this.reachedAt(root, 0);

    const frontier: SearchNode[] = [root];
    let expanded = 0;
    let goal: SearchNode | null = null;
    let ended: RunResult | undefined;
    let budgetSpent = false;
    const log = this.opts.progress ?? (() => undefined);

    while (frontier.length) {
      frontier.sort((a, b) => a.score - b.score || b.depth - a.depth || a.id - b.id);
      const best = frontier[0];
      if (best.alt?.then === 'end') {
        goal = frontier.shift()!;
        break;
      }
      if (this.model.left < 1 || (!best.reached && best.alt?.then === 'more' && this.model.left < 2)) {
        budgetSpent = true;
        break;
      }
      frontier.shift();
      if (!best.reached) {
        const stop = await this.reach(best);
        if (stop.end) {
          ended = stop.end;
          break;
        }
      }
      const k = Math.min(this.opts.k, this.model.left);
      if (k < 1) {
        frontier.unshift(best);
        budgetSpent = true;
        break;
      }
      const list = await runner.alternatives(k);
      const seg = this.segments.get(best)!;
      seg.sampled = this.records.length - 1;
      best.expanded = true;
      expanded++;
      this.scoredBy ??= list.some(a => a.nll !== null) ? 'nll' : 'vote';
      const fresh: SearchNode[] = [];
      list.forEach((a, index) => {
        // An empty step is no step (the model wrote nothing); an incomplete one ends nowhere.
        if (a.then === 'incomplete' || a.text.trim() === '') return;
        const child = this.node(best, { ...a, index }, k);
        fresh.push(child);
        frontier.push(child);
      });
      log(
        `search: expanded node ${best.id} (step ${best.step}, score ${fmt(best.score)}): ${k} sample(s), ${list.length} distinct, ` +
          `best ${fresh.length ? fmt(Math.min(...fresh.map(c => c.score))) : '-'}${fresh.some(c => c.alt?.then === 'end') ? ' (an answer)' : ''}; ` +
          `calls ${this.model.calls}/${this.opts.budget}, frontier ${frontier.length}`,
      );
    }

    let chosen: SearchNode;
    if (ended) chosen = [...this.segments.keys()].at(-1)!;
    else {
      // The best program with its answer; with none (the budget spent first), the best node that costs no call to reach.
      const reachable = (n: SearchNode) => n.reached || n.alt?.then === 'end' || n.alt?.then === 'pause';
      const pick =
        goal ??
        frontier.filter(n => n.alt?.then === 'end').sort((a, b) => a.score - b.score)[0] ??
        [...frontier, ...this.segments.keys()].filter(reachable).sort((a, b) => a.score - b.score || b.depth - a.depth)[0] ??
        this.current ??
        root;
      chosen = pick;
      if (!pick.reached) {
        const stop = await this.reach(pick);
        if (stop.end) ended = stop.end;
      } else if (pick !== this.current) {
        const back = nextStop(runner);
        runner.goTo(this.points.get(pick)!);
        const at = await back;
        if (at.end) ended = at.end;
        else this.current = pick;
      }
      if (!ended) {
        // The end of the run is the chosen node's last record.
        const seg = this.segments.get(pick)!;
        seg.tail = [this.records.length, -1];
        runner.stop();
      }
    }
    const result = await running;
    chosen.end = result;
    const seg = this.segments.get(chosen);
    if (seg?.tail) seg.tail[1] = this.records.length;
    log(
      `search: ${goal ? `node ${chosen.id} reached the answer` : budgetSpent ? 'the budget is spent before a program reached its answer' : `the run ended (${result.reason})`}: ` +
        `${expanded} node(s) expanded, ${this.segments.size} reached, ${this.nextId} sampled; ${this.model.calls} of ${this.opts.budget} model call(s); best score ${fmt(chosen.score)} (${this.scoredBy ?? 'nll'})`,
    );
    return {
      result,
      expanded,
      reached: this.segments.size,
      nodes: this.nextId,
      calls: this.model.calls,
      budget: this.opts.budget,
      scoredBy: this.scoredBy ?? 'nll',
      chosen,
      budgetSpent: !goal && budgetSpent,
      root,
    };
  }

  /** Takes the run to a sampled node: back to its parent's pause, then the node's text streamed as the next completion. */
  private async reach(node: SearchNode): Promise<Stop> {
    const runner = this.runner;
    const parent = node.parent!;
    if (this.current !== parent) {
      const back = nextStop(runner);
      runner.goTo(this.points.get(parent)!);
      const at = await back;
      if (at.end) return at;
      this.current = parent;
    }
    const from = this.records.length;
    let stop: Stop;
    for (let forced = true; ; forced = false) {
      const next = nextStop(runner);
      if (forced) runner.continueWith(node.alt!.text, node.alt!.index, true);
      else runner.step();
      stop = await next;
      // Before a tool runs: on to its output (a node is where the next step is sampled).
      if (stop.pause?.phase !== 'before') break;
    }
    node.reached = true;
    this.current = null;
    if (stop.end) {
      node.end = stop.end;
      this.segments.set(node, { from, to: this.records.length, checkpoint: -1 });
      return stop;
    }
    node.pause = stop.pause;
    this.reachedAt(node, from);
    return stop;
  }

  private reachedAt(node: SearchNode, from: number): void {
    const cps = this.runner.checkpointList();
    const cp = cps[cps.length - 1];
    node.step = cp.step;
    node.text = this.runner.textOnResume();
    this.points.set(node, this.runner.savePoint());
    this.segments.set(node, { from, to: this.records.length, checkpoint: cp.index });
    this.current = node;
  }

  private node(parent: SearchNode | null, alt?: Alternative & { index: number }, k = 1): SearchNode {
    const n: SearchNode = {
      id: this.nextId++,
      parent,
      depth: parent ? parent.depth + 1 : 0,
      alt,
      score: 0,
      children: [],
      reached: false,
      expanded: false,
      step: parent?.step ?? 0,
      nllSum: parent?.nllSum ?? 0,
      tokens: parent?.tokens ?? 0,
      voteSum: parent?.voteSum ?? 0,
      steps: parent?.steps ?? 0,
    };
    if (alt) {
      if (alt.nll !== null && alt.tokens) {
        n.nllSum += alt.nll * alt.tokens;
        n.tokens += alt.tokens;
      }
      n.voteSum += 1 - alt.votes / k;
      n.steps++;
    }
    n.score =
      this.scoredBy === 'vote' || (this.scoredBy === null && n.tokens === 0)
        ? n.steps
          ? n.voteSum / n.steps
          : 0
        : n.tokens
          ? n.nllSum / n.tokens
          : 0;
    parent?.children.push(n);
    return n;
  }
}

/** The nodes from the root to `n`. */
export function pathTo(n: SearchNode): SearchNode[] {
  const out: SearchNode[] = [];
  for (let x: SearchNode | null = n; x; x = x.parent) out.unshift(x);
  return out;
}

/** The records of the run on its way to `n`: each node's way there and the alternatives sampled at it. */
export function recordsOf(search: StepSearch, n: SearchNode): TraceRecord[] {
  const out: TraceRecord[] = [];
  const path = pathTo(n);
  path.forEach((node, i) => {
    const seg = search.segments.get(node);
    if (!seg) return;
    out.push(...search.records.slice(seg.from, seg.to));
    if (i < path.length - 1 && seg.sampled !== undefined) out.push(search.records[seg.sampled]);
    if (i === path.length - 1 && seg.tail) out.push(...search.records.slice(...seg.tail));
  });
  return out;
}

/** Explored nodes off the chosen path: reached, with no reached child (a reached node's way is in its children's). */
export function exploredLeaves(search: StepSearch, r: SearchResult): SearchNode[] {
  const onPath = new Set(pathTo(r.chosen));
  return [...search.segments.keys()].filter(n => !onPath.has(n) && !n.children.some(c => c.reached));
}

/**
 * Writes the explored tree: the chosen path as the run's trace at `tracePath`, each other explored node as a trace
 * in `<run>.search/` beside it, named by a `branch` record of the run (why `search`) where it parts from the chosen
 * path. Returns the files written. `secrets` are scrubbed from every line.
 */
export function writeSearchTraces(search: StepSearch, r: SearchResult, tracePath: string, secrets: string[] = []): string[] {
  const dir = `${basename(tracePath).replace(/\.jsonl$/i, '')}.search`;
  const onPath = pathTo(r.chosen);
  const leaves = exploredLeaves(search, r);
  const branchesAt = new Map<SearchNode, TraceRecord[]>();
  const files: string[] = [tracePath];
  if (leaves.length) makeOwnedFolder(join(dirname(tracePath), dir));
  for (const leaf of leaves) {
    const name = `${dir}/node-${leaf.id}.jsonl`;
    const file = join(dirname(tracePath), name);
    const text = leaf.end?.snapshot.text ?? leaf.text ?? leaf.pause?.snapshot.text ?? '';
    const answer = leaf.end?.answer ?? null;
    const w = new TraceWriter(file, secrets);
    for (const rec of recordsOf(search, leaf)) w.write(rec);
    if (!leaf.end) {
      const s = leaf.pause!.snapshot;
      // Paused after a tool: its output is the node's last step (the run appends it as it goes on).
      const call = leaf.pause!.phase === 'after' ? leaf.pause!.call : undefined;
      if (call) w.write({ t: 'tool', at: Date.now(), call: { ...call, appended: text.slice(s.text.length) } });
      w.write({
        t: 'end',
        at: Date.now(),
        reason: 'stopped',
        answer: null,
        text,
        usage: s.usage,
        requests: s.requests,
        error: `the search left this node (score ${fmt(leaf.score)}) for a better one`,
      });
    }
    w.close();
    files.push(file);
    // Where it parts from the chosen path: the last node both share.
    const mine = new Set(pathTo(leaf));
    const fork = [...onPath].reverse().find(n => mine.has(n))!;
    const seg = search.segments.get(fork)!;
    const list = branchesAt.get(fork) ?? [];
    list.push({
      t: 'branch',
      at: Date.now(),
      why: 'search',
      fromCheckpoint: Math.max(0, seg.checkpoint),
      step: fork.step,
      text,
      trace: name,
      answer,
      nll: r.scoredBy === 'nll' ? leaf.score : null,
      label: `search · ${r.scoredBy === 'nll' ? 'nll' : 'vote'} ${fmt(leaf.score)}${leaf.end ? ` · ${leaf.end.reason}` : ''}`,
    });
    branchesAt.set(fork, list);
  }
  // The chosen path, with the branches inserted after the alternatives sampled where each parts from it.
  const w = new TraceWriter(tracePath, secrets);
  onPath.forEach((node, i) => {
    const seg = search.segments.get(node);
    if (!seg) return;
    for (const rec of search.records.slice(seg.from, seg.to)) w.write(rec);
    if (i < onPath.length - 1 && seg.sampled !== undefined) w.write(search.records[seg.sampled]);
    for (const b of branchesAt.get(node) ?? []) w.write(b);
    if (i === onPath.length - 1 && seg.tail) for (const rec of search.records.slice(...seg.tail)) w.write(rec);
  });
  w.close();
  return files;
}
