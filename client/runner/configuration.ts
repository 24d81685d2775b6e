// Debug configurations of type `art`: F5 on an `.art` or `.agent` file works with no launch.json (the program at
// the cursor runs), settings fill what a configuration leaves out, and nothing starts in an untrusted workspace.
import { existsSync } from 'node:fs';
import { makeOwnedFolder } from '../../core/common/ownedFiles';
import { dirname, join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { answerBeside, isCotPrompt, transcriptBeside } from '../../core/launch/companions';
import { newRunId, prepareRunsFolder, runFiles } from '../../core/trace/history';
import { readSetting, type ArtSettings } from '../settings';
import { chooseMode, liveModelName } from './mode';
import { isRunnable, unitAt, unitsOf } from './programs';
import { DEBUG_TYPE, type ArtLaunchArguments } from '../debugAdapter/protocol';
import { RUN_SCHEME, type RunOrigin } from '../views/streamEditor';

export const UNTRUSTED_RUN_MESSAGE =
  'ART Studio: this workspace is not trusted, so nothing runs (no model, no tool, no Python). Trust the workspace ("Workspaces: Manage Workspace Trust") to run or debug programs.';

export interface ConfigurationDeps {
  client?: LanguageClient;
  log?: vscode.LogOutputChannel;
  settings: (scope?: vscode.ConfigurationScope) => ArtSettings;
  /** Folder where runs outside any workspace folder write their traces (in a workspace: the runs folder). */
  traceDir?: vscode.Uri;
  /** Whether `task` of the program (its text) has a recording to replay (core/launch/recording.ts, through the runner bundle). */
  hasRecording?: (program: string, text: string, task: string | number | undefined) => boolean;
  /** The program (and task) a run's read-only document came from (views/streamEditor.ts), while it is open. */
  runOrigin?: (uri: vscode.Uri) => RunOrigin | undefined;
}

type ArtConfiguration = vscode.DebugConfiguration & Partial<ArtLaunchArguments>;

export class ArtConfigurationProvider implements vscode.DebugConfigurationProvider {
  constructor(private readonly deps: ConfigurationDeps) {}

  /** launch.json's first configurations (package.json has no `initialConfigurations`: VS Code would add both). */
  provideDebugConfigurations(): vscode.DebugConfiguration[] {
    return [
      {
        type: DEBUG_TYPE,
        request: 'launch',
        name: 'ART: debug the program at the cursor (replay or live, as the status bar says)',
        program: '${file}',
        pauseBeforeTool: false,
      },
      {
        type: DEBUG_TYPE,
        request: 'launch',
        name: 'ART: replay the program at the cursor (after a departure the model goes on, if one is set)',
        program: '${file}',
        mode: 'replay',
        replayDelayMs: 15,
      },
    ];
  }

  resolveDebugConfiguration(_folder: vscode.WorkspaceFolder | undefined, config: ArtConfiguration): ArtConfiguration | undefined {
    const doc = vscode.window.activeTextEditor?.document;
    // F5 in a run's read-only document (scheme art-run) runs the program it came from, the same task.
    const bare = !config.type && !config.request && !config.name;
    if (doc?.uri.scheme === RUN_SCHEME && (bare || config.program === '${file}')) {
      const origin = this.deps.runOrigin?.(doc.uri);
      if (!origin) {
        void vscode.window.showInformationMessage(
          'ART Studio: this is the program a run wrote (read-only), and its source is not known any more: open the .art or .agent file to run it.',
        );
        return undefined;
      }
      const name = `ART: ${vscode.workspace.asRelativePath(origin.program)}`;
      config = {
        ...config,
        type: config.type || DEBUG_TYPE,
        request: config.request || 'launch',
        name: config.name || name,
        program: origin.program,
      };
      if (config.task === undefined && origin.task !== undefined) config.task = origin.task;
    }
    if (bare && !config.program) {
      if (!doc || !isRunnable(doc)) {
        void vscode.window.showInformationMessage('ART Studio: open an .art or .agent file to run it, or add an "art" launch configuration.');
        return undefined;
      }
      config = { type: DEBUG_TYPE, request: 'launch', name: `ART: ${vscode.workspace.asRelativePath(doc.uri)}`, program: '${file}' };
    }
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showErrorMessage(UNTRUSTED_RUN_MESSAGE);
      return undefined;
    }
    if (!config.program) {
      void vscode.window.showErrorMessage(
        'ART Studio: the launch configuration has no "program": give the .art or .agent file to run (e.g. "${file}").',
      );
      return undefined;
    }
    return config;
  }

  async resolveDebugConfigurationWithSubstitutedVariables(
    folder: vscode.WorkspaceFolder | undefined,
    config: ArtConfiguration,
  ): Promise<ArtConfiguration | undefined> {
    return this.complete(folder, config, { trace: true });
  }

  /**
   * The configuration as a run gets it: settings fill what it leaves out, the program at the cursor, the question of
   * an agent. `trace`: name a trace file in the run history when it has none (false for a run that is not run:
   * "ART: Show Prompt").
   */
  async complete(
    folder: vscode.WorkspaceFolder | undefined,
    config: ArtConfiguration,
    opts: { trace: boolean },
  ): Promise<ArtConfiguration | undefined> {
    const program = String(config.program);
    const programUri = vscode.Uri.file(program);
    const s = this.deps.settings(programUri);
    const root = folder?.uri.fsPath ?? vscode.workspace.getWorkspaceFolder(programUri)?.uri.fsPath ?? dirname(program);
    config.cwd ??= root;
    // Settings fill the options the configuration leaves out (each option declares its setting, if any).
    const filled = config as Record<string, unknown>;
    for (const [name, value] of Object.entries(s.runOptions)) filled[name] ??= value;
    if (config.trace === undefined && opts.trace) {
      // Every run goes in the workspace's run history (art.runs.folder); outside a workspace, in the extension's storage.
      const workspaceRoot = folder?.uri.fsPath ?? vscode.workspace.getWorkspaceFolder(programUri)?.uri.fsPath;
      if (workspaceRoot) {
        const runs = resolve(workspaceRoot, s.runsFolder);
        prepareRunsFolder(runs, s.runsGitignore);
        config.trace = runFiles(runs, newRunId(program)).trace;
      } else if (this.deps.traceDir) {
        makeOwnedFolder(this.deps.traceDir.fsPath);
        config.trace = join(this.deps.traceDir.fsPath, `${newRunId(program)}.jsonl`);
      }
    }

    const editor = vscode.window.visibleTextEditors.find(e => e.document.uri.fsPath === programUri.fsPath);
    const doc =
      editor?.document ??
      (isRunnable({ languageId: '', uri: programUri } as vscode.TextDocument) ? await vscode.workspace.openTextDocument(programUri) : undefined);
    const units = doc ? await unitsOf(doc, this.deps.client, this.deps.log) : [];
    if (config.task === undefined && editor) {
      const unit = unitAt(units, editor.selection.active);
      if (unit) config.task = unit.task;
    }
    const chosen = typeof config.task === 'number' ? units.find(u => u.task === config.task) : units.find(u => u.title === config.task);
    if (chosen?.notRunnable) {
      void vscode.window.showErrorMessage(`ART Studio: ${chosen.title}: ${chosen.notRunnable}.`);
      return undefined;
    }
    // Replay or live, never switched silently (client/runner/mode.ts): the reason goes into the run's first line.
    if (config.modeReason === undefined) {
      const recorded = !!doc && !!this.deps.hasRecording?.(program, doc.getText(), config.task);
      const choice = chooseMode({
        configured: config.mode,
        setting: readSetting('run.mode', programUri),
        model: liveModelName(config as Record<string, unknown>),
        recorded,
      });
      if ('error' in choice) {
        void vscode.window.showErrorMessage(`ART Studio: ${choice.error}.`);
        return undefined;
      }
      config.mode = choice.mode;
      config.modeReason = choice.reason;
    }
    // In replay mode, the run recorded beside the spec (core/launch/companions.ts) brings its own question.
    const cot = isCotPrompt(program);
    const recorded = config.mode === 'replay' && existsSync(cot ? answerBeside(program) : transcriptBeside(program));
    if ((/\.agent$/i.test(program) || cot) && !config.input && !recorded) {
      const name = chosen?.title ?? (typeof config.task === 'string' ? config.task : undefined);
      const question = await vscode.window.showInputBox({
        title: `Question for ${cot ? 'the MultiTool-CoT prompt' : (name ?? 'the agent')}`,
        prompt: cot
          ? 'The question fills the prompt\'s %s (the launch configuration\'s "input").'
          : 'The agent answers this question (the launch configuration\'s "input").',
        ignoreFocusOut: true,
      });
      if (!question) return undefined;
      config.input = question;
    }
    return config;
  }
}
