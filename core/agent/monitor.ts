// The decoding monitor of Crouse et al. (2023). Generated text is split into states by their prompt texts
// (leftmost, longest match first: `[Action Input]` before `[Action]`; a prompt text counts wherever it occurs),
// and the states are walked through the compiled automaton. At the first violation (a state that cannot follow,
// or text before the first state) the text is truncated where the offending part starts and the longest common
// prefix of the valid next states' prompt texts is appended, so generation resumes on spec.
//
// StreamMonitor does this chunk by chunk; a tail that could still be the start of a prompt text is held back
// until the next chunk (or end()) decides it, so any chunking of a text gives exactly the batch result. A chunk
// costs its own length and the held-back tail: the text fed so far is kept whole but read only for a correction.
import { positionState, type CompiledAgent } from './compile';
import { commonPrefixLength } from '../common/text';

export interface Violation {
  /** Where the offending prompt text (or the text before the first state) starts; text.length at the end. */
  offset: number;
  /** The state whose prompt text was found there; null for text before the first state or an early end. */
  found: string | null;
  /** The states that could have come instead, in formula order. */
  expected: string[];
}

/** A correction the runner made with the monitor (offsets in the run's text, the question line included). */
export interface MonitorCorrection {
  offset: number;
  /** The state whose prompt text the model wrote where it could not follow; null: text before any state, an early end. */
  found: string | null;
  /** The states allowed there. */
  expected: string[];
  /** The text dropped (what the model wrote from the offset). */
  removed: string;
  /** The text inserted instead (the common prefix of the allowed states' prompt texts). */
  inserted: string;
}

export interface MonitorResult {
  valid: boolean;
  /** The states entered, in order, up to the violation. */
  states: string[];
  violation: Violation | null;
  /** The text itself when valid; else the text truncated at the violation plus the valid continuation prefix. */
  corrected: string;
}

export type MonitorEvent =
  | {
      type: 'state';
      state: string;
      /** Where the state's prompt text starts and ends. */
      offset: number;
      end: number;
      /** The environment supplies this state's text: the runner pauses here. */
      envInput: boolean;
    }
  | { type: 'violation'; violation: Violation; corrected: string };

export interface MonitorOptions {
  /** The text is a whole run: ending in a state that is not final is a violation. */
  complete?: boolean;
  /** Start at these automaton positions (a pause point: the state the text so far ended in) instead of before the first state. */
  start?: readonly number[];
}

interface PromptText {
  text: string;
  /** Indices of the states with this text (several only in a spec with a duplicate-text error). */
  states: number[];
}

const isSpace = (c: string) => /\s/.test(c);

/** Longest common prefix of some strings ('' for none). */
export function commonPrefix(texts: string[]): string {
  if (!texts.length) return '';
  let prefix = texts[0];
  for (const t of texts.slice(1)) prefix = prefix.slice(0, commonPrefixLength(prefix, t));
  return prefix;
}

export class StreamMonitor {
  private buffer = '';
  /** Next offset to scan; everything before it is decided. */
  private pos = 0;
  /** The text from `pos` on (what is not decided yet): the only part a chunk reads. */
  private undecided = '';
  /** Characters read so far (each scan's undecided text), for tests of the per-chunk cost. */
  charsRead = 0;
  /** Current automaton positions; null before the first state. */
  private positions: number[] | null = null;
  private readonly entered: string[] = [];
  private violationFound: Violation | null = null;
  private correction = '';
  private ended = false;
  private readonly prompts: PromptText[];
  private readonly firstChars: Set<string>;

  constructor(
    readonly agent: CompiledAgent,
    readonly options: MonitorOptions = {},
  ) {
    const byText = new Map<string, PromptText>();
    agent.states.forEach((s, i) => {
      if (!s.text) return;
      const p = byText.get(s.text);
      if (p) p.states.push(i);
      else byText.set(s.text, { text: s.text, states: [i] });
    });
    this.prompts = [...byText.values()].sort((a, b) => b.text.length - a.text.length);
    this.firstChars = new Set(this.prompts.map(p => p.text[0]));
    if (options.start?.length) this.positions = [...options.start];
  }

  /** Everything fed so far (after resumeWithCorrection: the corrected text and what was fed since). */
  get text(): string {
    return this.buffer;
  }

  /** Text before this offset is decided; the rest is held back as the possible start of a prompt text. */
  get safeLength(): number {
    return this.violationFound ? this.violationFound.offset : this.pos;
  }

  /** The current state's name; null before the first state. */
  get current(): string | null {
    return this.positions?.length ? positionState(this.agent, this.positions[0]).name : null;
  }

  /** The automaton positions the monitor may be in (one per occurrence of the current state in the formula). */
  get currentPositions(): readonly number[] {
    return this.positions ?? [];
  }

  /** The run may end here. */
  get isFinal(): boolean {
    if (!this.positions) return this.agent.acceptsEmpty;
    return this.positions.some(p => this.agent.final[p]);
  }

  /** The current state's text comes from the environment (`:env-input`): the runner pauses here. */
  get inEnvInput(): boolean {
    return !!this.positions?.length && positionState(this.agent, this.positions[0]).envInput;
  }

  get violation(): Violation | null {
    return this.violationFound;
  }

  /** The names of the states that may come next, in formula order. */
  expectedNext(): string[] {
    return this.namesOf(this.nextPositions());
  }

  /** The longest common prefix of the prompt texts of the states that may come next. */
  expectedPrefix(): string {
    return this.prefixOf(this.nextPositions());
  }

  feed(chunk: string): MonitorEvent[] {
    if (this.ended) return [];
    this.buffer += chunk;
    this.undecided += chunk;
    return this.violationFound ? [] : this.scan(false);
  }

  /** The text is complete: decide the held-back tail and, with `complete`, check that the run may end here. */
  end(): MonitorEvent[] {
    if (this.ended) return [];
    this.ended = true;
    if (this.violationFound) return [];
    const events = this.scan(true);
    if (!this.violationFound && this.options.complete && !this.isFinal) {
      events.push(this.violate(this.buffer.length, null));
    }
    return events;
  }

  /** Continue from the corrected text, as the runner does after truncating and appending the correction. */
  resumeWithCorrection(): MonitorEvent[] {
    const v = this.violationFound;
    if (!v) return [];
    this.buffer = this.correction;
    this.pos = v.offset;
    this.undecided = this.correction.slice(v.offset);
    this.violationFound = null;
    this.correction = '';
    this.ended = false;
    return this.scan(false);
  }

  result(): MonitorResult {
    const v = this.violationFound;
    return { valid: !v, states: [...this.entered], violation: v, corrected: v ? this.correction : this.buffer };
  }

  private nextPositions(): number[] {
    if (!this.positions) return this.agent.initial;
    const next = new Set<number>();
    for (const p of this.positions) for (const q of this.agent.follow[p]) next.add(q);
    return [...next].sort((a, b) => a - b);
  }

  private namesOf(ps: number[]): string[] {
    return [...new Set(ps.map(p => positionState(this.agent, p).name))];
  }

  private prefixOf(ps: number[]): string {
    const texts = [...new Set(ps.map(p => positionState(this.agent, p).text))].filter(t => t);
    return commonPrefix(texts);
  }

  private violate(offset: number, found: string | null): MonitorEvent {
    const next = this.nextPositions();
    const violation: Violation = { offset, found, expected: this.namesOf(next) };
    this.violationFound = violation;
    this.correction = this.buffer.slice(0, offset) + this.prefixOf(next);
    return { type: 'violation', violation, corrected: this.correction };
  }

  private scan(atEnd: boolean): MonitorEvent[] {
    const events: MonitorEvent[] = [];
    // The text from `base` on: offsets below are the whole text's.
    const text = this.undecided;
    const base = this.pos;
    this.charsRead += text.length;
    const length = base + text.length;
    while (this.pos < length) {
      const at = this.pos;
      const c = text[at - base];
      let match: PromptText | null = null;
      if (this.firstChars.has(c)) {
        let undecided = false;
        for (const p of this.prompts) {
          if (at + p.text.length <= length) {
            if (text.startsWith(p.text, at - base)) {
              match = p;
              break;
            }
          } else if (!atEnd && p.text.startsWith(text.slice(at - base))) {
            undecided = true; // a longer prompt text may still be arriving: wait for more text
            break;
          }
        }
        if (undecided) break;
      }
      if (!match) {
        if (!this.positions && !isSpace(c)) {
          events.push(this.violate(at, null));
          break;
        }
        this.pos++;
        continue;
      }
      const matched = match.states;
      const candidates = this.nextPositions().filter(q => matched.includes(this.agent.positions[q].state));
      if (!candidates.length) {
        events.push(this.violate(at, this.agent.states[matched[0]].name));
        break;
      }
      this.positions = candidates;
      const state = positionState(this.agent, candidates[0]);
      this.entered.push(state.name);
      this.pos = at + match.text.length;
      events.push({ type: 'state', state: state.name, offset: at, end: this.pos, envInput: state.envInput });
    }
    this.undecided = text.slice(this.pos - base);
    return events;
  }
}

/** Check a whole text at once (the same machine as StreamMonitor, fed in one chunk). */
export function monitorText(agent: CompiledAgent, text: string, options: MonitorOptions = {}): MonitorResult {
  const m = new StreamMonitor(agent, options);
  m.feed(text);
  m.end();
  return m.result();
}
