// From a launch configuration to a ready Runner: reads the file (`.art` task library, `.agent` spec, MultiTool-CoT
// prompt, or a `.jsonl` trace to replay), opens the session (session.ts) and the trace, and hands the file to the
// builder of its language (artRun.ts, agentRun.ts, cotRun.ts, traceRun.ts). Shared by the shells that run programs:
// the debug adapter, `art run` and `art eval`. Every failure is a LaunchError with one line that says what to fix.
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { readTextFile, TextFileError } from '../common/textFile';
import { CachedModel } from '../replay/cachedModel';
import type { TraceSink } from '../trace/schema';
import { MemoryTrace, TraceWriter } from '../trace/trace';
import { makeAgentRun } from './agentRun';
import { makeArtRun } from './artRun';
import { COT_EXTENSION, languageOf as fileLanguage } from '../common/language';
import { makeCotRun } from './cotRun';
import { LaunchError } from './options';
import { cacheRecords } from './requestCache';
import { openSession, runInfo, type Launch, type PreparedRun, type RunConfig, type RunLanguage } from './session';
import { makeTraceRun } from './traceRun';

/** Prepares one run of `config`: a LaunchError when it cannot. */
export async function prepareRun(config: RunConfig): Promise<PreparedRun> {
  const session = await openSession(config);
  const o = session.options;
  const { root, tools } = session;
  const at = (p: string) => (isAbsolute(p) ? p : resolve(root, p));
  const path = at(o.program);
  let text: string;
  let language: RunLanguage;
  try {
    text = config.text ?? readProgram(path);
    language = languageOf(path);
  } catch (e) {
    await session.dispose();
    throw e;
  }
  const mode = o.mode;
  if (o.api === 'tools' && (language === 'agent' || language === 'multitool') && mode === 'generate') {
    await session.dispose();
    throw new LaunchError(
      `api "tools" runs ART programs (.art): run ${language === 'agent' ? 'an agent' : 'a MultiTool-CoT prompt'} with api "completions" or "chat"`,
    );
  }
  // Reranking scores passages with the model's log-probabilities; the replay model has none.
  if (o.rerank && mode === 'replay' && language !== 'trace')
    config.log?.('search reranking is unavailable in replay mode (the recorded text has no log-probabilities): search keeps the BM25 order');

  let writer: TraceWriter | undefined;
  const tracePath = o.trace ? at(o.trace) : undefined;
  // The run's spans (when telemetry is configured) come from the records the trace gets; the title once it is known.
  const info = runInfo(o, relative(root, path) || path, relative(root, path) || path, typeof o.task === 'string' ? o.task : undefined);
  const spans = session.telemetry?.runSink(info, [config.apiKey]);
  const dispose = async () => {
    spans?.close();
    try {
      writer?.close();
    } catch (e) {
      config.log?.(
        `${tracePath}: closing the trace failed: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (its last records may be missing)`,
      );
    }
    await session.dispose();
  };
  try {
    if (tracePath) {
      try {
        writer = new TraceWriter(tracePath, config.apiKey ? [config.apiKey] : [], line => config.log?.(line));
      } catch (e) {
        throw new LaunchError(`${tracePath}: cannot write the trace: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    }
    const memory = new MemoryTrace();
    const trace: TraceSink = { write: r => (writer?.write(r), memory.write(r), spans?.write(r)) };
    const cached = cacheRecords(config, o, at);
    const launch: Launch = { tools, trace, config, options: o, root, cached };
    const made =
      language === 'art'
        ? await makeArtRun(text, path, launch)
        : language === 'agent'
          ? makeAgentRun(text, path, launch)
          : language === 'multitool'
            ? makeCotRun(text, path, launch)
            : makeTraceRun(text, path, launch);
    const cache = made.model instanceof CachedModel ? made.model : undefined;
    info.title = made.title;
    return {
      ...made,
      language,
      path,
      text,
      toolNotes: tools.notes,
      toolProblems: tools.problems,
      tracePath,
      records: memory.records,
      cache,
      dispose,
    };
  } catch (e) {
    await dispose();
    if (e instanceof LaunchError) throw e;
    throw new LaunchError((e as Error).message);
  }
}

/** The language of a file, by its name. */
export function languageOf(path: string): RunLanguage {
  const language = fileLanguage(path);
  if (language) return language;
  const ext = extname(path).toLowerCase();
  throw new LaunchError(
    `${path}: cannot run a '${ext || 'file without extension'}' file: give a task library (.art), an agent spec (.agent), a MultiTool-CoT prompt (${COT_EXTENSION}) or a run trace (.jsonl)`,
  );
}

/** A program file's text (a LaunchError naming the file when it cannot be read). */
export function readProgram(path: string): string {
  try {
    return readTextFile(path);
  } catch (e) {
    if (!(e instanceof TextFileError)) throw e;
    throw new LaunchError(`${path}: ${e.message}${e.kind === 'directory' ? ', not a program file' : ''}`);
  }
}
