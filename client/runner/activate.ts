// The runner's part of the extension: the inline `art` debug adapter (client/debugAdapter/debugSession.ts), its launch
// configurations, Run/Debug CodeLenses, the streamed program editor, the trace view and the commands. Called
// once from client/extension.ts.
import * as vscode from 'vscode';
import { openDebugViewOnStart } from './debugView';
import { State, type LanguageClient } from 'vscode-languageclient/node';
import { readSetting, type ArtSettings } from '../settings';
import { DEBUG_COMMAND, RUN_COMMAND, RunCodeLenses } from './codeLens';
import { API_KEY_SECRET, openTrace, overrideToolOutput, sampleAlternatives, saveAsDemonstration, setApiKey } from './commands';
import { ArtConfigurationProvider } from './configuration';
import { AgentDiagrams, SHOW_DIAGRAM_COMMAND } from '../views/diagram';
import { join } from 'node:path';
import { isRunnable, unitsOf } from './programs';
import { DEBUG_TYPE } from '../debugAdapter/protocol';
import { registerLibraryTests, type LibraryTests } from '../testing/libraryTests';
import { registerRunsCommands, replayRun, RunsView } from '../views/runsView';
import { COMPARE_EVALUATIONS_COMMAND, EVALUATE_COMMAND, Evaluations, type EvaluationMode } from '../testing/evaluation';
import { IMPROVE_COMMAND, ImproveCodeLens, LibraryImprovements, type ImproveGiven } from '../testing/improve';
import { EvalComparisons } from '../testing/comparison';
import { EvaluationsView, registerEvaluationsCommands } from '../views/evaluationsView';
import { SHOW_PROMPT_COMMAND, showPrompt } from './showPrompt';
import { ProgramStreams, RUN_SCHEME } from '../views/streamEditor';
import { CHOOSE_MODE_COMMAND, RunModeStatus, SET_ENDPOINT_COMMAND } from './mode';
import { CHECKED_DOCUMENTS, CHECKED_SCHEMES } from '../languageClient';
import { TraceView } from '../views/traceView';
import { provideChatModel } from '../lm/vscodeModel';
import { FORGET_KEY_HOSTS_COMMAND, KeyHosts } from './keyHosts';

export interface RunnerDeps {
  client?: LanguageClient;
  log: vscode.LogOutputChannel;
  settings: (scope?: vscode.ConfigurationScope) => ArtSettings;
}

export interface RunnerApi {
  streams: ProgramStreams;
  traceView: TraceView;
  /** Programs as tests: the Test Explorer's controller of the workspace's task libraries. */
  tests: LibraryTests;
  runs: RunsView;
  diagrams: AgentDiagrams;
  /** "ART: Evaluate Task" and its results view. */
  evaluations: Evaluations;
  /** "ART: Compare Evaluations" and its view. */
  comparisons: EvalComparisons;
  /** "ART: Improve Library…". */
  improvements: LibraryImprovements;
  /** The ART Evaluations view: the workspace's past evaluations per library. */
  evaluationsView: EvaluationsView;
  /** The status bar's run mode (Replay or Live). */
  mode: RunModeStatus;
  /** Where every run's key is read, and the hosts the user approved (client/runner/keyHosts.ts). */
  keyHosts: KeyHosts;
  /** The runner bundle (dist/runnerServices.js), loaded on first use. */
  services: () => RunnerServices;
}

export const COMMANDS = {
  setApiKey: 'art.setApiKey',
  forgetKeyHosts: FORGET_KEY_HOSTS_COMMAND,
  saveDemonstration: 'art.saveDemonstration',
  openTrace: 'art.openTrace',
  overrideToolOutput: 'art.overrideToolOutput',
  compareRuns: 'art.compareRuns',
  showAgentDiagram: SHOW_DIAGRAM_COMMAND,
  sampleAlternatives: 'art.sampleAlternatives',
  evaluateTask: EVALUATE_COMMAND,
  improveLibrary: IMPROVE_COMMAND,
  compareEvaluations: COMPARE_EVALUATIONS_COMMAND,
  showPrompt: SHOW_PROMPT_COMMAND,
  run: RUN_COMMAND,
  debug: DEBUG_COMMAND,
} as const;

const OPEN_MODEL_SETTINGS = 'Set a Model Endpoint';
const CHOOSE_MODEL = 'Choose a Model';

export type RunnerServices = typeof import('../runnerServices');
let runnerServices: RunnerServices | undefined;

/**
 * The runner services from dist/runnerServices.js (beside this bundle), loaded on first use: the runner and its
 * dependencies are most of the extension's code and a debug session is rarer than opening a file.
 */
function loadRunnerBundle(): RunnerServices {
  // A computed path keeps esbuild from bundling the module into dist/client.js.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load of the runner's own bundle, by path
  runnerServices ??= require(join(__dirname, 'runnerServices.js')) as RunnerServices;
  return runnerServices;
}

/** At deactivation: the runs' last spans sent (a bounded wait), when the runner was loaded and telemetry is on. */
export async function endRunnerTelemetry(): Promise<void> {
  await runnerServices?.endTelemetry();
}

function loadDebugSession(): RunnerServices['ArtDebugSession'] {
  return loadRunnerBundle().ArtDebugSession;
}

export function activateRunner(context: vscode.ExtensionContext, deps: RunnerDeps): RunnerApi {
  const traceDir = vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'traces');
  // Every run's key is read here: the stored key, else the environment's, asked about before it goes to another host.
  const keyHosts = new KeyHosts({
    secrets: context.secrets,
    globalState: context.globalState,
    testMode: context.extensionMode === vscode.ExtensionMode.Test,
  });
  const provider = new ArtConfigurationProvider({
    client: deps.client,
    log: deps.log,
    settings: deps.settings,
    traceDir,
    hasRecording: (program, text, task) => loadRunnerBundle().hasRecording(program, text, task),
    runOrigin: uri => streams.originOf(uri),
  });
  const mode = new RunModeStatus(deps.settings, () => loadRunnerBundle(), {
    // The probe of a new endpoint's API goes with the key a run would send: the stored one, else the environment's.
    key: async () => (await context.secrets.get(API_KEY_SECRET)) || process.env[String(deps.settings().runOptions.apiKeyEnv ?? 'OPENAI_API_KEY')],
  });
  // A local model loaded by a run stays warm between runs (released when idle: art.model.idleReleaseMs) and goes
  // with the extension.
  context.subscriptions.push({ dispose: () => void runnerServices?.disposeLocalRuntimes() });
  const streams = new ProgramStreams(deps.log, () => readSetting('debug.streamToEditor'));
  const traceView = new TraceView();
  const lenses = new RunCodeLenses(deps.client, deps.log);
  // Programs as tests in the Test Explorer (the runner bundle is loaded when the explorer first asks).
  const tests = registerLibraryTests(context, {
    load: () => loadRunnerBundle().libraryTests,
    log: deps.log,
    runOptions: uri => deps.settings(uri).runOptions,
  });
  const runs = new RunsView(deps.settings);
  const diagrams = new AgentDiagrams(deps.log);
  // An evaluated example is replayed to be debugged: it stops before each tool too, where the call's input (the
  // model's decomposition) can be corrected; the first change goes on live (core/launch/traceRun.ts).
  const replayExample = (trace: string) => replayRun(trace, { pauseBeforeTool: true });
  const comparisons = new EvalComparisons({ load: () => loadRunnerBundle().evaluation, extensionUri: context.extensionUri, replay: replayExample });
  const evaluations = new Evaluations({
    compare: (a, b) => comparisons.compare(a, b),
    load: () => loadRunnerBundle().evaluation,
    runKey: (o, ctx) => keyHosts.keyFor(o, ctx),
    settings: deps.settings,
    log: deps.log,
    extensionUri: context.extensionUri,
    replay: replayExample,
    chatModel: provideChatModel,
  });
  const evaluationsView = new EvaluationsView(deps.log);
  const improvements = new LibraryImprovements({
    compare: (a, b) => comparisons.compare(a, b),
    load: () => loadRunnerBundle().evaluation,
    runKey: (o, ctx) => keyHosts.keyFor(o, ctx),
    settings: deps.settings,
    log: deps.log,
  });

  const factory: vscode.DebugAdapterDescriptorFactory = {
    createDebugAdapterDescriptor: () =>
      new vscode.DebugAdapterInlineImplementation(
        new (loadDebugSession())({
          // Read by the session itself when the run starts: the key never travels in the launch arguments.
          runKey: (o, args) => keyHosts.keyFor(o, { program: args.program, launchName: args.name }),
          isTrusted: () => vscode.workspace.isTrusted,
          // A run's program is the streamed `art-run:` document (views/streamEditor.ts): never checked, and the
          // stack frames name it.
          documentScheme: RUN_SCHEME,
          // art.model.source "vscode": the run's model is one of VS Code's Language Model API.
          chatModel: provideChatModel,
        }),
      ),
  };

  const start = async (uri: vscode.Uri | undefined, task: number | undefined, noDebug: boolean) => {
    const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
    if (!doc || !isRunnable(doc)) {
      void vscode.window.showInformationMessage('ART Studio: open an .art or .agent file to run it.');
      return false;
    }
    const unit = task !== undefined ? (await unitsOf(doc, deps.client, deps.log)).find(u => u.task === task) : undefined;
    const name = `${noDebug ? 'Run' : 'Debug'} ${unit?.title ?? vscode.workspace.asRelativePath(doc.uri)}`;
    return vscode.debug.startDebugging(
      vscode.workspace.getWorkspaceFolder(doc.uri),
      { type: DEBUG_TYPE, request: 'launch', name, program: doc.uri.fsPath, task },
      { noDebug },
    );
  };

  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(DEBUG_TYPE, factory),
    vscode.debug.registerDebugConfigurationProvider(DEBUG_TYPE, provider, vscode.DebugConfigurationProviderTriggerKind.Initial),
    vscode.debug.registerDebugConfigurationProvider(
      DEBUG_TYPE,
      {
        // The Run and Debug view's dynamic list: one configuration per program of the active file.
        provideDebugConfigurations: async () => {
          const doc = vscode.window.activeTextEditor?.document;
          if (!doc || !isRunnable(doc)) return [];
          const units = await unitsOf(doc, deps.client, deps.log);
          return units
            .filter(u => !u.notRunnable)
            .map(u => ({ type: DEBUG_TYPE, request: 'launch', name: `Debug ${u.title}`, program: doc.uri.fsPath, task: u.task }));
        },
      },
      vscode.DebugConfigurationProviderTriggerKind.Dynamic,
    ),
    // Lenses on the documents the server checks: none on a run's streamed program or the debugger's documents.
    vscode.languages.registerCodeLensProvider(
      [...CHECKED_DOCUMENTS, ...CHECKED_SCHEMES.map(scheme => ({ scheme, pattern: '**/*.cot.txt' }))],
      lenses,
    ),
    // The lenses come from the server: ask again once it runs (at activation, after a restart).
    ...(deps.client ? [deps.client.onDidChangeState(e => e.newState === State.Running && lenses.refresh())] : []),
    lenses,
    mode,
    streams,
    traceView,
    vscode.commands.registerCommand(COMMANDS.run, (uri?: vscode.Uri, task?: number) => start(uri, task, true)),
    vscode.commands.registerCommand(COMMANDS.debug, (uri?: vscode.Uri, task?: number) => start(uri, task, false)),
    vscode.commands.registerCommand(COMMANDS.setApiKey, (value?: string) => setApiKey(context.secrets, value)),
    vscode.commands.registerCommand(COMMANDS.forgetKeyHosts, () => keyHosts.forgetCommand()),
    vscode.commands.registerCommand(COMMANDS.overrideToolOutput, (text?: string) => overrideToolOutput(text)),
    vscode.commands.registerCommand(COMMANDS.sampleAlternatives, (k?: number) => sampleAlternatives(k)),
    vscode.commands.registerCommand(COMMANDS.saveDemonstration, (target?: vscode.Uri) => saveAsDemonstration(streams, target)),
    vscode.commands.registerCommand(COMMANDS.openTrace, (uri?: vscode.Uri) => openTrace(traceView, streams, uri)),
    // A new run makes the trace shown a past one: the view empties rather than show it as if it were current.
    vscode.debug.onDidStartDebugSession(s => s.type === DEBUG_TYPE && traceView.clear()),
    openDebugViewOnStart(),
    runs,
    diagrams,
    ...registerRunsCommands(runs, uri => openTrace(traceView, streams, uri)),
    vscode.commands.registerCommand(COMMANDS.showAgentDiagram, () => diagrams.show()),
    evaluations,
    vscode.commands.registerCommand(COMMANDS.evaluateTask, (library?: vscode.Uri, data?: vscode.Uri, task?: string | number, mode?: EvaluationMode) =>
      evaluations.run(library, data, task, undefined, mode),
    ),
    vscode.commands.registerCommand(COMMANDS.improveLibrary, (library?: vscode.Uri, given?: ImproveGiven) => improvements.run(library, given)),
    vscode.languages.registerCodeLensProvider({ language: 'art', scheme: 'file' }, new ImproveCodeLens()),
    comparisons,
    evaluationsView,
    ...registerEvaluationsCommands(evaluationsView, { open: path => evaluations.open(path), compare: (a, b) => comparisons.compare(a, b) }),
    vscode.commands.registerCommand(COMMANDS.compareEvaluations, (a?: string | vscode.Uri, b?: string | vscode.Uri) => comparisons.compare(a, b)),
    vscode.commands.registerCommand(COMMANDS.showPrompt, (target?: Parameters<typeof showPrompt>[1]) =>
      showPrompt(
        { streams, provider, runs, promptOf: () => loadRunnerBundle().promptOfRun, runKey: (o, ctx) => keyHosts.keyFor(o, ctx), log: deps.log },
        target,
      ),
    ),
    streams.onDidEndRun(run => {
      // A run kept in the history: its summary (program, task, answer, tokens, time) beside its trace.
      if (run.tracePath) {
        try {
          runs.recordEnded(run.tracePath, run.program, run.unit);
        } catch (e) {
          deps.log.warn(`run history: ${(e as Error).message}`);
        }
      }
      deps.log.info(
        `${run.sessionName} ended (${run.reason})${run.answer !== null ? `: answer ${run.answer}` : ''}${run.tracePath ? `; trace ${run.tracePath}` : ''}`,
      );
      if (run.reason === 'departed') {
        // A replay that left its recording with no model to go on with: say so, and offer to set one (an endpoint, or
        // one of VS Code's models in the run mode item's list).
        void vscode.window
          .showWarningMessage(`ART Studio: ${run.error ?? 'the run departed from its recording'}.`, OPEN_MODEL_SETTINGS, CHOOSE_MODEL)
          .then(choice => {
            if (choice === OPEN_MODEL_SETTINGS) void vscode.commands.executeCommand(SET_ENDPOINT_COMMAND);
            if (choice === CHOOSE_MODEL) void vscode.commands.executeCommand(CHOOSE_MODE_COMMAND);
          });
      }
    }),
  );
  return {
    streams,
    traceView,
    tests,
    runs,
    diagrams,
    evaluations,
    comparisons,
    improvements,
    evaluationsView,
    mode,
    keyHosts,
    services: loadRunnerBundle,
  };
}
