// Programs as tests: every demonstration of a task library is replayed (the replay model writes the recorded model
// text), its tools run again for real, and each re-executed tool's output and the final answer are compared with
// the recording after folding white space. Deterministic tools (code, calculator, lookup, user tools) are compared
// by default; model-backed tools and search, whose outputs are not expected to be stable, only with `tools: 'all'`
// (otherwise they answer with their recorded output, so the program goes on as recorded). Used by `art test`, the
// corpus suite's fidelity test and the VS Code Test Explorer.
import { foldWhitespace } from '../common/text';
import { normalizeName, programTitle, type ArtDocument } from '../art/ast';
import { ReplayModel } from '../replay/programReplay';
import type { ModelClient } from '../model/types';
import type { ToolRegistry } from '../tools/registry';
import type { Tool } from '../tools/types';
import { createArtRunner } from '../launch/create';
import { libraryAsRun } from '../prompt/prompt';
import { isDemonstration } from '../prompt/selection';
import type { ToolCall } from '../trace/vocabulary';
import { HEADLESS } from '../launch/options';

/** Tools whose outputs are not expected to be stable: the model writes code, or a search ranks passages. */
const UNSTABLE_TOOLS = new Set(
  ['search', 'Search', 'Lookup', 'code generate', 'generate python code', 'code edit', 'string edit', 'string index', 'string permutation'].map(
    normalizeName,
  ),
);

export function isDeterministicTool(name: string): boolean {
  return !UNSTABLE_TOOLS.has(normalizeName(name));
}

export interface StepCheck {
  /** The step number k of `Qk:`. */
  step: number;
  tool: string;
  /** 0-based line of the step's `Qk:` in the library file. */
  line: number;
  recorded: string;
  /** What the tool returned now, or undefined when it failed (see `error`). */
  got?: string;
  error?: string;
  /** Whether the output was compared (false: a model-backed or search step without `tools: 'all'`). */
  compared: boolean;
  ok: boolean;
}

export interface ProgramTest {
  /** The program's index in the file. */
  index: number;
  title: string;
  /** 0-based line where the program starts. */
  line: number;
  passed: boolean;
  steps: StepCheck[];
  answer: { recorded: string | null; got: string | null; ok: boolean };
  /** Why the run did not finish, when it did not. */
  error?: string;
}

export interface LibraryTestOptions {
  /** The tools to run (the caller creates and disposes of the registry). */
  tools: ToolRegistry;
  /** `deterministic` (default): compare code, calculator, lookup and user tools; `all`: every tool. */
  compare?: 'deterministic' | 'all';
  /** The model that model-backed tools ask when every tool is compared (without one they answer from the recording). */
  toolModel?: ModelClient;
  toolTimeoutMs?: number;
  signal?: AbortSignal;
}

/** 0-based line of offset `at`. */
function lineOf(text: string, at: number): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < at; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The demonstration programs of a library (not the `%s` template, not a program without input or steps). */
export function demonstrationIndices(doc: ArtDocument): number[] {
  return doc.programs.flatMap((p, i) => (isDemonstration(p) ? [i] : []));
}

/** Replays program `index` of `library` and compares its tool outputs and answer with the recording. */
export async function testProgram(library: ArtDocument, index: number, opts: LibraryTestOptions): Promise<ProgramTest> {
  const doc = libraryAsRun(library);
  const program = doc.programs[index];
  if (!program) throw new Error(`the library has no program ${index} (it has ${doc.programs.length})`);
  const title = programTitle(program, index);
  const line = lineOf(library.text, library.programs[index].span.start);
  const all = opts.compare === 'all';
  const compared = (name: string) => all || isDeterministicTool(name);
  const recordedOf = (step: number) => program.steps.find(s => s.number === step)?.answer?.text;
  const model = ReplayModel.fromArtProgram(doc, index, name => opts.tools.get(name) !== undefined);
  // Steps not compared answer with their recording, so the rest of the program sees what it saw then.
  const tools: ToolRegistry = {
    ...opts.tools,
    get(name: string): Tool | undefined {
      const tool = opts.tools.get(name);
      if (!tool || compared(name)) return tool;
      return {
        info: tool.info,
        run: async input => {
          const s = program.steps.find(
            st => st.name !== null && normalizeName(st.name) === normalizeName(name) && st.instruction.trim() === input.instruction.trim(),
          );
          return s?.answer
            ? { ok: true, output: s.answer.text, details: { recorded: true } }
            : tool.run(input, { signal: opts.signal ?? new AbortController().signal });
        },
      };
    },
  };
  const calls: ToolCall[] = [];
  let result;
  try {
    const runner = createArtRunner(
      { library: doc, program: index },
      {
        model,
        toolModel: all ? opts.toolModel : undefined,
        tools,
        ...HEADLESS,
        toolTimeoutMs: opts.toolTimeoutMs,
      },
    );
    runner.on('toolDone', ({ call }) => calls.push(call));
    const abort = () => void runner.stop();
    opts.signal?.addEventListener('abort', abort, { once: true });
    try {
      result = await runner.run();
    } finally {
      opts.signal?.removeEventListener('abort', abort);
    }
  } catch (e) {
    return {
      index,
      title,
      line,
      passed: false,
      steps: [],
      answer: { recorded: program.ans?.text ?? null, got: null, ok: false },
      error: (e as Error).message,
    };
  }
  const steps: StepCheck[] = calls.map(c => {
    const recorded = recordedOf(c.step) ?? '';
    const source = library.programs[index].steps.find(s => s.number === c.step);
    const isCompared = compared(c.tool) && c.details?.recorded !== true;
    const ok = !isCompared || (c.error === undefined && foldWhitespace(c.output ?? '') === foldWhitespace(recorded));
    return {
      step: c.step,
      tool: c.tool,
      line: lineOf(library.text, (source ?? program).span.start),
      recorded,
      ...(c.output !== undefined ? { got: c.output } : {}),
      ...(c.error !== undefined ? { error: c.error } : {}),
      compared: isCompared,
      ok,
    };
  });
  const recordedAnswer = program.ans?.text ?? null;
  const got = result.answer ?? null;
  const answerOk = recordedAnswer === null ? got === null : got !== null && foldWhitespace(got) === foldWhitespace(recordedAnswer);
  const error = result.reason === 'finished' ? undefined : (result.error ?? `the run ended: ${result.reason}`);
  return {
    index,
    title,
    line,
    passed: steps.every(s => s.ok) && answerOk && error === undefined,
    steps,
    answer: { recorded: recordedAnswer, got, ok: answerOk },
    ...(error !== undefined ? { error } : {}),
  };
}

/** A demonstration as a test: its index in the file, title and 0-based line (the Test Explorer's items). */
export interface DemonstrationItem {
  index: number;
  title: string;
  line: number;
}

/** The demonstrations of a library's text, as tests to list. */
export function listDemonstrations(library: ArtDocument): DemonstrationItem[] {
  return demonstrationIndices(library).map(index => {
    const p = library.programs[index];
    return { index, title: programTitle(p, index), line: lineOf(library.text, p.span.start) };
  });
}

/** Tests every demonstration of a library, one after the other. */
export async function testLibrary(library: ArtDocument, opts: LibraryTestOptions): Promise<ProgramTest[]> {
  const out: ProgramTest[] = [];
  for (const i of demonstrationIndices(library)) {
    if (opts.signal?.aborted) break;
    out.push(await testProgram(library, i, opts));
  }
  return out;
}

/** The failure of a program as lines: each differing step (step, recorded, got), the answer, the run's error. */
export function describeFailure(t: ProgramTest): string[] {
  const lines: string[] = [];
  for (const s of t.steps) {
    if (s.ok) continue;
    lines.push(`  #${s.step} [${s.tool}] (line ${s.line + 1})`);
    lines.push(`    recorded: ${foldWhitespace(s.recorded)}`);
    lines.push(`    got:      ${s.error !== undefined ? `error: ${foldWhitespace(s.error)}` : foldWhitespace(s.got ?? '')}`);
  }
  if (!t.answer.ok) {
    lines.push('  Ans:');
    lines.push(`    recorded: ${t.answer.recorded === null ? '(none)' : foldWhitespace(t.answer.recorded)}`);
    lines.push(`    got:      ${t.answer.got === null ? '(none)' : foldWhitespace(t.answer.got)}`);
  }
  if (t.error !== undefined) lines.push(`  ${t.error}`);
  return lines;
}
