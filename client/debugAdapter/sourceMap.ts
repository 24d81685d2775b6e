// Where a run meets its source file: which step or agent state a breakpoint line stands for, and which line a step
// of the run shows in the call stack. Lines are 1-based, as the debug adapter speaks them.
import type { AgentFile } from '../../core/agent/ast';
import { parseAgentFile } from '../../core/agent/parse';
import type { ArtDocument } from '../../core/art/ast';
import { parseArt } from '../../core/art/parse';
import type { FileLanguage } from '../../core/common/language';
import { LineIndex } from '../../core/common/text';

export interface BreakpointTarget {
  /** The line asked for. */
  requested: number;
  /** The line the breakpoint sits on (a step's `Qk:` line, a state's definition). */
  line?: number;
  /** ART: the program index and step number it stops at. */
  program?: number;
  step?: number;
  /** Agents: the agent index and state name. */
  agent?: number;
  state?: string;
  /** Why the line cannot hold a breakpoint. */
  message?: string;
}

export class SourceMap {
  private readonly lines: LineIndex;
  private readonly art?: ArtDocument;
  private readonly agents?: AgentFile;

  /** A MultiTool-CoT prompt has no steps in the file: its triggers are in the text the model writes. */
  constructor(
    readonly language: Exclude<FileLanguage, 'trace'>,
    readonly text: string,
  ) {
    this.lines = new LineIndex(text);
    if (language === 'art') this.art = parseArt(text);
    else if (language === 'agent') this.agents = parseAgentFile(text);
  }

  static forPath(path: string, text: string): SourceMap | undefined {
    if (/\.art$/i.test(path)) return new SourceMap('art', text);
    if (/\.agent$/i.test(path)) return new SourceMap('agent', text);
    return undefined;
  }

  private lineOf(offset: number): number {
    return this.lines.position(offset).line + 1;
  }

  /** What a breakpoint on `line` stops at: a line inside a step moves to its `Qk:` line, inside a state to its name. */
  breakpoint(line: number): BreakpointTarget {
    const offset = this.lines.offset({ line: line - 1, character: 0 });
    const lineEnd = this.lines.lineEnd(offset);
    const touches = (s: { start: number; end: number }) => s.start <= lineEnd && offset <= Math.max(s.start, s.end - 1);
    if (this.art) {
      for (const [pi, p] of this.art.programs.entries()) {
        if (p.template) continue;
        for (const s of p.steps) {
          const whole = { start: s.span.start, end: s.answer ? s.answer.span.end : s.span.end };
          if (!touches(whole)) continue;
          if (s.isEoq)
            return { requested: line, message: '`[EOQ]` ends the program: the run does not stop there; put the breakpoint on an earlier step.' };
          return { requested: line, line: this.lineOf(s.marker.start), program: pi, step: s.number };
        }
      }
      return { requested: line, message: 'An ART breakpoint stops at a step: put it on a `Qk:` line.' };
    }
    if (!this.agents)
      return {
        requested: line,
        message:
          'A MultiTool-CoT prompt stops at each trigger the model writes, not at a line of the prompt: use a function breakpoint on the tool name.',
      };
    for (const [ai, a] of this.agents.agents.entries()) {
      for (const s of a.states) {
        if (touches(s.span)) return { requested: line, line: this.lineOf(s.nameSpan.start), agent: ai, state: s.name };
      }
    }
    return { requested: line, message: 'An agent breakpoint stops when a state is entered: put it on a state of `:states`.' };
  }

  /** ART: the line of step `step` of program `program`. */
  stepLine(program: number, step: number): number | undefined {
    const s = this.art?.programs[program]?.steps.find(x => x.number === step);
    return s ? this.lineOf(s.marker.start) : undefined;
  }

  /** ART: the line of the program's `Ans:` (or its last line). */
  answerLine(program: number): number | undefined {
    const p = this.art?.programs[program];
    if (!p) return undefined;
    return this.lineOf(p.ans ? p.ans.span.start : Math.max(p.span.start, p.span.end - 1));
  }

  /** ART: the first line of a program (its `Description:` or `Input:`). */
  programLine(program: number): number | undefined {
    const p = this.art?.programs[program];
    return p ? this.lineOf(p.span.start) : undefined;
  }

  /** Agents: the line where state `name` of agent `agent` is defined. */
  stateLine(agent: number, name: string): number | undefined {
    const s = this.agents?.agents[agent]?.states.find(x => x.name === name);
    return s ? this.lineOf(s.nameSpan.start) : undefined;
  }
}

/** The 1-based line of `offset` in `text`. */
export function lineAt(text: string, offset: number): number {
  return new LineIndex(text).position(offset).line + 1;
}
