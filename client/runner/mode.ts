// Replay or live, never switched silently: `art.run.mode` (core/settings/settings.ts) says whether F5 and the
// Debug/Run lenses replay a program's recording or have the model generate it, the status bar item shows it (Replay,
// or Live with the model's name) and a click chooses it: Replay, Live on the endpoint, Live on a local GGUF model (those
// of the models folder, a file chosen, or one downloaded: `art.model.file`), or Live on one of the models VS Code's
// Language Model API offers (`art.model.source`, `art.model.vscodeModel`). Every run's first line says
// which mode and why (the reason goes to the adapter as the launch argument `modeReason`). "ART: Set a Model
// Endpoint" writes the endpoint settings in the scope VS Code keeps them in and shows them.
import * as vscode from 'vscode';
import type { ArtSettings } from '../settings';
import { readSetting } from '../settings';
import type { SettingValue } from '../../core/settings/settings';
import { modelLabel, pickModel } from '../lm/vscodeModel';
import { basename } from 'node:path';

/** What the item needs of the runner bundle (loaded when the choice is opened): the local model files. */
type LocalModels = Pick<typeof import('../runnerServices'), 'listModelFiles' | 'modelsFolder' | 'pullModel' | 'DEFAULT_LOCAL_MODEL'>;
import { probeApi } from '../../core/model/probe';
import type { RunOptions } from '../../core/launch/options';

export const SWITCH_MODE_COMMAND = 'art.switchRunMode';
export const CHOOSE_MODE_COMMAND = 'art.chooseRunMode';
export const SET_ENDPOINT_COMMAND = 'art.setModelEndpoint';
export const DOWNLOAD_MODEL_COMMAND = 'art.downloadLocalModel';

/** The live model as the status bar and a run's first line name it: the endpoint's model name, or VS Code's model. */
export function liveModelName(o: Record<string, unknown>): string | undefined {
  if (o.modelSource === 'vscode') return `VS Code: ${(o.vscodeModel as string | undefined) || 'first model'}`;
  if (o.modelSource === 'local') return o.modelFile ? `Local: ${basename(String(o.modelFile))}` : undefined;
  return (o.model as string | undefined) || undefined;
}

export type RunMode = SettingValue<'run.mode'>;

/** The mode a run gets and why, or why it cannot start. */
export type ModeChoice = { mode: 'generate' | 'replay'; reason: string } | { error: string };

/**
 * The mode of a run: the launch configuration's `mode` if it has one, else `art.run.mode`. In replay mode a program
 * with a recording replays it; one with none is generated when a model is set (said in the reason), else it replays
 * and the launch says what is missing. Live mode needs a model.
 */
export function chooseMode(opts: { configured?: string; setting: RunMode; model?: string; recorded: boolean }): ModeChoice {
  if (opts.configured === 'generate' || opts.configured === 'replay')
    return { mode: opts.configured, reason: `the launch configuration's "mode" is "${opts.configured}"` };
  if (opts.setting === 'live') {
    if (!opts.model)
      return {
        error: 'the run mode is Live but no model is set: run "ART: Set a Model Endpoint", or click Live in the status bar to go back to Replay',
      };
    return { mode: 'generate', reason: 'the run mode is Live (the status bar, art.run.mode)' };
  }
  if (opts.recorded) return { mode: 'replay', reason: 'the run mode is Replay (the status bar, art.run.mode) and the program has a recording' };
  if (opts.model) return { mode: 'generate', reason: `the program has no recording to replay, and a model is set (${opts.model})` };
  return { mode: 'replay', reason: 'the run mode is Replay (the status bar, art.run.mode)' };
}

/** The status bar item: Replay or Live (model), shown beside an ART editor; a click switches. */
export class RunModeStatus implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('art.runMode', vscode.StatusBarAlignment.Right, 99);
  private readonly disposables: vscode.Disposable[] = [this.item];

  constructor(
    private readonly settings: (scope?: vscode.ConfigurationScope) => ArtSettings,
    private readonly local: () => LocalModels,
    private readonly endpointDeps: EndpointDeps = {},
  ) {
    this.item.name = 'ART Run Mode';
    this.item.command = CHOOSE_MODE_COMMAND;
    this.disposables.push(
      vscode.window.onDidChangeActiveTextEditor(() => this.refresh()),
      vscode.workspace.onDidChangeConfiguration(e => {
        if (e.affectsConfiguration('art.run.mode') || e.affectsConfiguration('art.model')) this.refresh();
      }),
      vscode.lm.onDidChangeChatModels(() => {
        if (this.settings(this.scope()).runOptions.modelSource === 'vscode') this.refresh();
      }),
      vscode.commands.registerCommand(SWITCH_MODE_COMMAND, (to?: RunMode) => this.switch(to)),
      vscode.commands.registerCommand(CHOOSE_MODE_COMMAND, () => this.choose()),
      vscode.commands.registerCommand(DOWNLOAD_MODEL_COMMAND, (uri?: string) => this.download(uri)),
      vscode.commands.registerCommand(SET_ENDPOINT_COMMAND, (baseURL?: string, model?: string, api?: ApiChoice) =>
        setModelEndpoint(baseURL, model, api, this.endpointDeps),
      ),
    );
    this.refresh();
  }

  /** The text shown (for tests). */
  get text(): string {
    return this.item.text;
  }

  private scope(): vscode.Uri | undefined {
    return vscode.window.activeTextEditor?.document.uri;
  }

  refresh(): void {
    const doc = vscode.window.activeTextEditor?.document;
    const scope = doc?.uri;
    const mode = readSetting('run.mode', scope);
    const model = liveModelName(this.settings(scope).runOptions);
    if (mode === 'live') {
      this.item.text = `$(sparkle) Live (${model || 'no model set'})`;
      this.item.tooltip = `ART Studio runs are generated by ${model ? `the model ${model}` : 'the model (none is set: "ART: Set a Model Endpoint")'}. Click to choose Replay or another model.`;
    } else {
      this.item.text = '$(history) Replay';
      this.item.tooltip = `ART Studio runs replay their recording (a program's steps, an agent's transcript); a program with none ${
        model ? `is generated by ${model}` : 'cannot run until a model is set'
      }. Click to choose Live and its model.`;
    }
    const shown = doc && ['art', 'art-agent'].includes(doc.languageId) && doc.uri.scheme !== 'art-run';
    if (shown) this.item.show();
    else this.item.hide();
  }

  /**
   * The status bar's choice: Replay, Live on the endpoint, or Live on a model of VS Code's Language Model API (those
   * it offers now), or setting an endpoint. The choice is written where `switch` writes the mode.
   */
  async choose(): Promise<void> {
    const scope = this.scope();
    const o = this.settings(scope).runOptions;
    const live = readSetting('run.mode', scope) === 'live';
    const onVscode = o.modelSource === 'vscode';
    const onLocal = o.modelSource === 'local';
    const local = this.local();
    const folder = local.modelsFolder();
    const files = local.listModelFiles(folder);
    const chosenFile = String(o.modelFile ?? '');
    if (chosenFile && !files.some(f => f.path === chosenFile))
      files.unshift({ name: basename(chosenFile), path: chosenFile, bytes: 0, modified: '' });
    const models = await vscode.lm.selectChatModels().then(
      all => all,
      () => [] as vscode.LanguageModelChat[],
    );
    // The model a run would use: checked as the current choice.
    const chosen = pickModel(models, String(o.vscodeModel ?? ''));
    type Choice = vscode.QuickPickItem & { apply?: () => Promise<unknown> };
    const current = (yes: boolean) => (yes ? ' $(check)' : '');
    const endpoint = o.model as string | undefined;
    const choices: Choice[] = [
      {
        label: `$(history) Replay${current(!live)}`,
        detail: 'Replay recordings (a program with none is generated by the model)',
        apply: () => this.switch('replay'),
      },
      { label: 'Endpoint', kind: vscode.QuickPickItemKind.Separator },
      endpoint
        ? {
            label: `$(sparkle) Live: ${endpoint}${current(live && o.modelSource === 'endpoint')}`,
            detail: `The OpenAI-compatible endpoint ${String(o.baseURL ?? '')}`,
            apply: () => this.useModel('endpoint'),
          }
        : {
            label: '$(gear) Set a Model Endpoint…',
            detail: 'An OpenAI-compatible endpoint (art.model.baseURL, art.model.name)',
            // Set from the Live choice: once set, runs are live on it.
            apply: async () => (await setModelEndpoint(undefined, undefined, undefined, this.endpointDeps)) && this.useModel('endpoint'),
          },
      { label: 'Local models', kind: vscode.QuickPickItemKind.Separator },
      ...files.map(f => ({
        label: `$(sparkle) Live: Local: ${f.name}${current(live && onLocal && f.path === chosenFile)}`,
        detail: `${f.known ?? 'A GGUF model'} run in-process by llama.cpp, no key and no server${f.bytes ? ` (${(f.bytes / 1e6).toFixed(0)} MB)` : ''}: ${f.path}`,
        apply: () => this.useLocal(f.path),
      })),
      {
        label: '$(folder-opened) Choose a GGUF File…',
        detail: 'A local model file to run in-process (art.model.file)',
        apply: () => this.chooseFile(folder),
      },
      {
        label: '$(cloud-download) Download a Local Model…',
        detail: `Into ${folder} (default: ${local.DEFAULT_LOCAL_MODEL.name})`,
        apply: () => this.download(),
      },
      { label: "VS Code's language models", kind: vscode.QuickPickItemKind.Separator },
      ...models.map(m => ({
        label: `$(sparkle) Live: ${modelLabel(m)}${current(live && onVscode && m === chosen)}`,
        detail: `VS Code's Language Model API (${m.family}); no log-probabilities: VS Code asks once before ART Studio uses it`,
        apply: () => this.useModel('vscode', m.id),
      })),
      ...(models.length ? [] : [{ label: 'No language model: install one that provides them (GitHub Copilot, ...)', detail: '' }]),
    ];
    const picked = await vscode.window.showQuickPick(choices, {
      title: 'ART Studio: run mode and model',
      placeHolder: 'Replay, or the model live runs use',
    });
    await picked?.apply?.();
  }

  /**
   * Live on the local model `file`: the file in the user's settings (machine-scoped: a workspace cannot make the
   * editor load a file it names), the source in the window's scope, then the mode.
   */
  private async useLocal(file: string): Promise<void> {
    await vscode.workspace.getConfiguration('art').update('model.file', file, vscode.ConfigurationTarget.Global);
    await this.useModel('local');
  }

  /** *Choose a GGUF File…*: an open dialog on the models folder, filtered to GGUF. */
  private async chooseFile(folder: string): Promise<void> {
    const picked = await vscode.window.showOpenDialog({
      title: 'ART Studio: a local GGUF model',
      defaultUri: vscode.Uri.file(folder),
      canSelectMany: false,
      filters: { 'GGUF models': ['gguf'] },
      openLabel: 'Run with This Model',
    });
    if (picked?.[0]) await this.useLocal(picked[0].fsPath);
  }

  /**
   * *Download a Local Model…*: the URI (the default model's first), then the download in a cancellable progress
   * notification; the model is chosen when it is whole.
   */
  async download(uri?: string): Promise<string | undefined> {
    const local = this.local();
    uri ??= await vscode.window.showInputBox({
      title: 'ART Studio: download a local model',
      prompt: `A GGUF model: hf:owner/repo/file.gguf, hf:owner/repo:quant or an https URL. Saved in ${local.modelsFolder()}.`,
      value: local.DEFAULT_LOCAL_MODEL.uri,
      ignoreFocusOut: true,
      validateInput: v => (/^(hf:\S+|https?:\/\/\S+)$/.test(v.trim()) ? undefined : 'hf:owner/repo/file.gguf, hf:owner/repo:quant or an http(s) URL'),
    });
    if (!uri) return undefined;
    try {
      const path = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Downloading ${uri}`, cancellable: true },
        async (progress, token) => {
          const ac = new AbortController();
          token.onCancellationRequested(() => ac.abort());
          let reported = 0;
          return local.pullModel({
            uri,
            signal: ac.signal,
            onProgress: p => {
              if (!p.totalBytes) return;
              const pct = (100 * p.downloadedBytes) / p.totalBytes;
              progress.report({
                increment: pct - reported,
                message: `${(p.downloadedBytes / 1e6).toFixed(0)} of ${(p.totalBytes / 1e6).toFixed(0)} MB`,
              });
              reported = pct;
            },
          });
        },
      );
      await this.useLocal(path);
      void vscode.window.showInformationMessage(`ART Studio: live runs use the local model ${basename(path)} (${path}).`);
      return path;
    } catch (e) {
      void vscode.window.showErrorMessage(`ART Studio: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }
  }

  /** Live on the endpoint or on VS Code's model `id`: the model source (and model) in the window's scope, then the mode. */
  private async useModel(source: 'endpoint' | 'vscode' | 'local', id?: string): Promise<void> {
    const c = vscode.workspace.getConfiguration('art', this.scope());
    const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await c.update('model.source', source, target);
    if (id !== undefined) await c.update('model.vscodeModel', id, target);
    await this.switch('live');
  }

  /** Switches to `to` (default: the other mode), in the workspace's settings when a folder is open. */
  async switch(to?: RunMode): Promise<RunMode> {
    const scope = this.scope();
    const next: RunMode = to ?? (readSetting('run.mode', scope) === 'live' ? 'replay' : 'live');
    const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration('art', scope).update('run.mode', next, target);
    this.refresh();
    if (next === 'live' && !liveModelName(this.settings(scope).runOptions)) {
      void vscode.window
        .showWarningMessage(
          'ART Studio: Live mode needs a model: a local GGUF model (no key, no server), or a model endpoint (art.model.baseURL and art.model.name).',
          'Download a Local Model',
          'Set a Model Endpoint',
        )
        .then(choice => choice && vscode.commands.executeCommand(choice === 'Set a Model Endpoint' ? SET_ENDPOINT_COMMAND : DOWNLOAD_MODEL_COMMAND));
    }
    return next;
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** What "ART: Set a Model Endpoint" needs besides the user: the key to send the probe of the API with. */
export interface EndpointDeps {
  /** The key a run would send (the stored key, else the environment variable the settings name). */
  key?(): Thenable<string | undefined> | Promise<string | undefined>;
}

type ApiChoice = RunOptionsApi | 'detect';
type RunOptionsApi = RunOptions['api'];

/**
 * "ART: Set a Model Endpoint": asks for the base URL, the model name and the API (or takes them) and writes them where
 * VS Code keeps them: `art.model.baseURL` is machine-scoped (a workspace must not send the key to another endpoint),
 * so it goes in the user settings of the machine the extension runs on (in a remote window, the Remote tab), and
 * `art.model.name` and `art.model.api` with it; then the settings editor shows them, on the right tab. The API is
 * chosen, or detected: a one-token request to `/completions`, else `/chat/completions` (core/model/probe.ts), so a
 * chat-only endpoint gets the chat API instead of a 404 on the first run.
 */
export async function setModelEndpoint(baseURL?: string, model?: string, api?: ApiChoice, deps: EndpointDeps = {}): Promise<boolean> {
  const c = vscode.workspace.getConfiguration('art');
  baseURL ??= await vscode.window.showInputBox({
    title: 'Model endpoint (1/3): base URL',
    prompt: "The base URL of an OpenAI-compatible API (art.model.baseURL, kept in this machine's user settings).",
    value: c.get<string>('model.baseURL') || 'http://127.0.0.1:8000/v1',
    ignoreFocusOut: true,
    validateInput: v => (/^https?:\/\/\S+$/.test(v.trim()) ? undefined : 'an http:// or https:// URL'),
  });
  if (!baseURL) return false;
  model ??= await vscode.window.showInputBox({
    title: 'Model endpoint (2/3): model name',
    prompt: 'The model name the endpoint serves (art.model.name).',
    value: c.get<string>('model.name') || '',
    ignoreFocusOut: true,
    validateInput: v => (v.trim() ? undefined : 'the model name, e.g. gpt-4o-mini'),
  });
  if (!model) return false;
  [baseURL, model] = [baseURL.trim(), model.trim()];
  api ??= await pickApi(c.get<string>('model.api'));
  if (!api) return false;
  const detected = api === 'detect' ? await detectApi(baseURL, model, deps) : api;
  const chosen = detected ?? (await pickApi(c.get<string>('model.api'), false));
  if (!chosen || chosen === 'detect') return false;
  await c.update('model.baseURL', baseURL, vscode.ConfigurationTarget.Global);
  await c.update('model.name', model, vscode.ConfigurationTarget.Global);
  await c.update('model.api', chosen, vscode.ConfigurationTarget.Global);
  // A workspace's own API would hide the one just chosen: it is the endpoint's, so it goes there too.
  const shadow = c.inspect<string>('model.api');
  if (shadow?.workspaceValue !== undefined && shadow.workspaceValue !== chosen)
    await c.update('model.api', chosen, vscode.ConfigurationTarget.Workspace);
  // Machine-scoped settings are on the Remote tab of a remote window (code-server, SSH), on the User tab otherwise.
  const command = vscode.env.remoteName ? 'workbench.action.openRemoteSettings' : 'workbench.action.openSettings';
  await vscode.commands.executeCommand(command, { query: 'art.model' });
  void vscode.window.showInformationMessage(
    `ART Studio: the model endpoint is ${baseURL}, model ${model}, the ${chosen} API (machine settings: a workspace cannot redirect the key). The key: "ART: Set API Key".`,
  );
  return true;
}

const API_CHOICES: { api: ApiChoice; label: string; detail: string }[] = [
  { api: 'detect', label: '$(search) Detect', detail: 'Ask the endpoint: a one-token request to /completions, else to /chat/completions' },
  { api: 'completions', label: 'Completions', detail: 'POST /completions: the model continues the program; stop sequences honoured' },
  { api: 'chat', label: 'Chat', detail: 'POST /chat/completions: the program so far in a message (for chat-only endpoints)' },
  { api: 'tools', label: 'Tools', detail: 'POST /chat/completions with function calling: each tool offered as a function' },
];

/** Step 3/3: the API (art.model.api), Detect first; `detect: false` after a detection that could not tell. */
async function pickApi(current: string | undefined, detect = true): Promise<ApiChoice | undefined> {
  const pick = await vscode.window.showQuickPick(
    API_CHOICES.filter(a => detect || a.api !== 'detect').map(a => ({ ...a, description: a.api === current ? 'current' : undefined })),
    { title: detect ? 'Model endpoint (3/3): API' : 'Model endpoint (3/3): the endpoint could not tell: which API?', ignoreFocusOut: true },
  );
  return pick?.api;
}

/** The API the endpoint answers (a notification while it is asked), or undefined when it cannot tell (said why). */
async function detectApi(baseURL: string, model: string, deps: EndpointDeps): Promise<RunOptionsApi | undefined> {
  const apiKey = (await deps.key?.()) || undefined;
  const r = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `ART Studio: asking ${baseURL} which API it serves…`, cancellable: true },
    (_progress, token) => {
      const controller = new AbortController();
      token.onCancellationRequested(() => controller.abort());
      return probeApi({ baseURL, model, apiKey, signal: controller.signal }).catch(() => undefined);
    },
  );
  if (!r) return undefined;
  if (!r.api) void vscode.window.showWarningMessage(`ART Studio: the endpoint answered neither API (${r.said.join('; ')}): choose one.`);
  return r.api ?? undefined;
}
