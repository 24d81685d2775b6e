// The runner services bundle (dist/runnerServices.js), which the extension loads on first use so that the runner
// (model client, tools, MCP SDK) costs nothing at activation: the debug session class VS Code runs inline, the
// programs as tests of the Test Explorer (client/testing/libraryTests.ts), "ART: Evaluate Task"
// (client/testing/evaluation.ts) and "ART: Show Prompt" outside a debug session. It has no `vscode` import either.
import { resolve } from 'node:path';
import { parseArt } from '../core/art/parse';
import { listDemonstrations, testProgram as testLibraryProgram, type ProgramTest } from '../core/evaluation/libraryTest';
import { promptOfRun } from '../core/launch/promptOfRun';
import { openSession } from '../core/launch/session';
import { HEADLESS } from '../core/launch/options';
import { readDataset } from '../core/evaluation/eval';
import { comparisonReport, evalReport, progressLine, resultsFileReport } from '../core/evaluation/report';
import {
  defaultResultsPath,
  EvalDataError,
  evaluate,
  exampleWithoutTask,
  hasResults,
  libraryChangedSince,
  LaunchError,
  libraryTasks,
  newResultsPath,
  resultsFiles,
} from '../core/evaluation/evaluate';
import { resultsWriter } from '../core/evaluation/resultsFile';
import { ArtDebugSession } from './debugAdapter/debugSession';
import { defaultImprovedPath, defaultWorkFolder, improve, ImproveError, ImproveStopped, PlanError } from '../core/improve/improve';
import { withoutHeader } from '../core/improve/candidates';
import { writeSplits } from '../core/improve/splits';
import { toolOfEditorName } from '../core/agentTools/catalog';
import { invokeTool } from '../core/agentTools/invoke';
import { RunSlots, capInputs, defaultLimits } from '../core/agentTools/limits';
import { PATH_OPTIONS, runOptionsOf } from '../core/agentTools/runOptions';
import { workspaceDefaults } from '../core/tools/registry';

export { ArtDebugSession };

/** The agent tools (core/agentTools/): the editor's language model tools call them here (client/lm/tools.ts). */
export const agentTools = { toolOfEditorName, invokeTool, RunSlots, defaultLimits, capInputs, runOptionsOf, PATH_OPTIONS, workspaceDefaults };
export type AgentToolsModule = typeof agentTools;

/** Sends the spans the runs' telemetry still holds (a bounded wait) and stops it: the extension's deactivation. */
export { endTelemetry } from '../core/launch/session';
/** Local models (the run mode item's Local choices): the models folder, pulling one, releasing those loaded. */
export { listModelFiles, modelsFolder, pullModel } from '../core/model/modelFiles';
export { disposeLocalRuntimes } from '../core/model/localRuntime';
export { DEFAULT_LOCAL_MODEL } from '../core/model/defaultModel';

/** Whether a program has a recording to replay (F5 replays it until the user chooses live: client/runner/mode.ts). */
export { hasRecording } from '../core/launch/recording';

/** "ART: Show Prompt" outside a debug session: the prompt a run of a configuration would send, or a trace's. */
export { promptOfRun };

/** Programs as tests for the Test Explorer (client/testing/libraryTests.ts): loaded with the runner on first use. */
export const libraryTests = {
  listDemonstrations: (text: string) => listDemonstrations(parseArt(text)),
  async testProgram(
    text: string,
    index: number,
    opts: { path: string; workspaceRoot: string; runOptions: Record<string, unknown>; signal?: AbortSignal },
  ): Promise<ProgramTest> {
    // The tools as a replay of the program would have them, from the same settings (Python limits, word list, ...).
    // The caller has checked the workspace trust. A setting that is not valid is a LaunchError naming it.
    const session = await openSession({
      ...opts.runOptions,
      program: opts.path,
      mode: 'replay',
      cwd: resolve(opts.workspaceRoot, (opts.runOptions.cwd as string | undefined) ?? '.'),
      trusted: true,
      ...HEADLESS,
    });
    try {
      return await testLibraryProgram(parseArt(text), index, {
        tools: session.tools,
        toolTimeoutMs: session.options.toolTimeoutMs,
        signal: opts.signal,
      });
    } finally {
      await session.dispose();
    }
  },
};
export type LibraryTestsModule = typeof libraryTests;

/** Evaluation over a dataset for "ART: Evaluate Task" (client/testing/evaluation.ts): loaded with the runner on first use. */
export const evaluation = {
  evaluate,
  evalReport,
  progressLine,
  defaultResultsPath,
  newResultsPath,
  resultsFiles,
  hasResults,
  libraryChangedSince,
  comparisonReport,
  resultsFileReport,
  resultsWriter,
  /** The tasks of a library's text (the template left out). */
  libraryTasks: (text: string) => libraryTasks(parseArt(text)),
  /** Reads the dataset (an EvalDataError naming the file and line when it cannot) and says whether every example names its task. */
  datasetNamesTasks: (path: string) => {
    const examples = readDataset(path);
    return { examples: examples.length, withoutTask: exampleWithoutTask(examples)?.line };
  },
  /** "ART: Improve Library…" (client/testing/improve.ts): core/improve. */
  improve,
  ImproveStopped,
  writeSplits,
  withoutHeader,
  defaultImprovedPath,
  defaultWorkFolder,
  /** Errors with a message for the person (anything else is a bug). */
  isUserError: (e: unknown) => e instanceof EvalDataError || e instanceof LaunchError || e instanceof PlanError || e instanceof ImproveError,
};
export type EvaluationModule = typeof evaluation;
