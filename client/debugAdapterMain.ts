// The `art` debug adapter bundle (dist/debugAdapter.js). Run as a program it is the standalone adapter over stdio
// for DAP clients other than VS Code (nvim-dap, Emacs dap-mode, ...): `node dist/debugAdapter.js`; the API key
// comes from the environment variable named by the `apiKeyEnv` launch argument, and `trusted` (default true) is
// the launch argument's. Required as a module it exports the session class: the extension loads it on the first
// debug session, so the runner (model client, tools, MCP SDK) costs nothing at activation.
import { parseArt } from '../core/art/parse';
import { listDemonstrations, testProgram as testLibraryProgram, type ProgramTest } from '../core/runner/libraryTest';
import { createToolRegistry } from '../core/tools/registry';
import { readDataset } from '../core/runner/eval';
import { evalReport, progressLine } from '../core/runner/evalReport';
import { defaultResultsPath, EvalDataError, evaluate, exampleWithoutTask, LaunchError, libraryTasks } from '../core/runner/evaluate';
import { ArtDebugSession } from './runner/debugSession';

export { ArtDebugSession };

/** Programs as tests for the Test Explorer (client/runner/libraryTests.ts): loaded with the runner on first use. */
export const libraryTests = {
  listDemonstrations: (text: string) => listDemonstrations(parseArt(text)),
  async testProgram(
    text: string,
    index: number,
    opts: { workspaceRoot: string; pythonPath?: string; corpus?: string; tools?: string; signal?: AbortSignal },
  ): Promise<ProgramTest> {
    const tools = await createToolRegistry({
      workspaceRoot: opts.workspaceRoot,
      trusted: true,
      pythonPath: opts.pythonPath,
      corpusDir: opts.corpus,
      toolsFile: opts.tools,
    });
    try {
      return await testLibraryProgram(parseArt(text), index, { tools, signal: opts.signal });
    } finally {
      await tools.dispose();
    }
  },
};
export type LibraryTestsModule = typeof libraryTests;

/** Evaluation over a dataset for "ART: Evaluate Task" (client/runner/evaluation.ts): loaded with the runner on first use. */
export const evaluation = {
  evaluate,
  evalReport,
  progressLine,
  defaultResultsPath,
  /** The tasks of a library's text (the template left out). */
  libraryTasks: (text: string) => libraryTasks(parseArt(text)),
  /** Reads the dataset (an EvalDataError naming the file and line when it cannot) and says whether every example names its task. */
  datasetNamesTasks: (path: string) => {
    const examples = readDataset(path);
    return { examples: examples.length, withoutTask: exampleWithoutTask(examples)?.line };
  },
  /** Errors with a message for the person (anything else is a bug). */
  isUserError: (e: unknown) => e instanceof EvalDataError || e instanceof LaunchError,
};
export type EvaluationModule = typeof evaluation;

if (require.main === module) {
  const session = new ArtDebugSession();
  process.on('SIGTERM', () => session.shutdown());
  session.start(process.stdin, process.stdout);
}
