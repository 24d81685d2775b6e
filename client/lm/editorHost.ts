// What the editor supplies to the agent tools (core/agentTools/tool.ts, ToolHost), as art mcp's host does for MCP
// clients: every path must lie in a workspace folder with symbolic links followed (a model file: or in the models
// folder), a path naming `..` refused; the run options a caller gives are lowered to the same caps as art mcp's
// defaults and go over the person's settings (an endpoint only with a model; the mode the status bar shows, unless the
// caller gives one); the key is read as a run reads it (asked about before it goes to another host); the chat model
// of VS Code's Language Model API when the settings choose it; the debug session the person sees; and the views where
// the work appears (the Problems view's diagnostics, the evaluation view, the proposal's diff, a prompt's document).
import { isAbsolute, resolve } from 'node:path';
import * as vscode from 'vscode';
import { isInside, realPath } from '../../core/common/folders';
import { CliError } from '../../core/common/sourceFiles';
import { RUN_OPTIONS, type RunOptionName } from '../../core/launch/options';
import type { EditorViews, ToolHost } from '../../core/agentTools/tool';
import type { FileDiagnostic } from '../../core/common/diagnostics';
import type { RunSlots } from '../../core/agentTools/limits';
import type { AgentToolsModule } from '../runnerServices';
import type { RunnerApi } from '../runner/activate';
import type { ArtSettings } from '../settings';
import { readSetting } from '../settings';
import { chooseMode, liveModelName } from '../runner/mode';
import { provideChatModel } from './vscodeModel';
import type { ArtSessions } from './sessions';

export interface EditorHostDeps {
  runner: RunnerApi;
  log: vscode.LogOutputChannel;
  settings: (scope?: vscode.ConfigurationScope) => ArtSettings;
  sessions: ArtSessions;
  m: AgentToolsModule;
  slots: RunSlots;
  signal: AbortSignal;
  progress: (message: string) => void;
  /** The tool's name, for the log. */
  tool: string;
}

/** The host of one call of an editor tool. */
export function editorHost(d: EditorHostDeps): ToolHost {
  const folders = () => (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file');
  const cwd = folders()[0]?.uri.fsPath ?? '';
  const keys: string[] = [];
  const limits = d.m.defaultLimits();
  const scopeOf = (program?: string) => (program ? vscode.Uri.file(program) : vscode.window.activeTextEditor?.document.uri);
  const path = (given: string, what: string, from = cwd) => confined(given, what, from, []);
  return {
    cwd,
    cwdShown: `${cwd || '(no folder)'}, the first workspace folder`,
    path: async (given, what) => path(given, what),
    activeFile: () => {
      const doc = vscode.window.activeTextEditor?.document;
      return doc?.uri.scheme === 'file' ? doc.uri.fsPath : undefined;
    },
    runOptions: async (args, program) => {
      const { values, notes } = d.m.capInputs(args, limits, flag => `the editor's cap; art mcp sets it with --${flag}`);
      const caller = d.m.runOptionsOf(values);
      const folder = program ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(program))?.uri.fsPath : undefined;
      const runCwd = typeof caller.cwd === 'string' ? path(caller.cwd, '"cwd"') : (folder ?? cwd);
      for (const name of d.m.PATH_OPTIONS) {
        const v = caller[name];
        if (typeof v === 'string' && v !== '') caller[name] = path(v, `"${name}"`, runCwd);
      }
      if (typeof caller.modelFile === 'string' && caller.modelFile !== '') {
        caller.modelFile = confined(caller.modelFile, '"modelFile"', runCwd, [d.runner.services().modelsFolder()]);
        caller.modelSource ??= 'local';
      }
      const scope = scopeOf(program);
      const raw: Record<string, unknown> = { ...d.settings(scope).runOptions, ...caller, cwd: runCwd };
      // The workspace's default tool file and corpus (read when no option names one) are confined like a path given:
      // a workspace's `corpus -> ~/Documents` would otherwise be searched and quoted to the agent, as in art mcp.
      for (const p of d.m.workspaceDefaults(runCwd, raw)) path(p, "the workspace's default", runCwd);
      // An endpoint is a base URL and a model: the base URL's default alone is none.
      if (!raw.model) delete raw.baseURL;
      if (program !== undefined) {
        raw.program = program;
        if (raw.mode === undefined) {
          const text = (await vscode.workspace.openTextDocument(vscode.Uri.file(program))).getText();
          const recorded = d.runner.services().hasRecording(program, text, raw.task as string | number | undefined);
          const choice = chooseMode({ setting: readSetting('run.mode', scope), model: liveModelName(raw), recorded });
          if ('error' in choice) throw new CliError(choice.error);
          raw.mode = choice.mode;
        }
      }
      return { raw, args: values, notes };
    },
    label: fileField => (name: RunOptionName) => {
      if (name === 'program') return `"${fileField}"`;
      const setting = RUN_OPTIONS[name].setting?.key;
      return setting ? `"${name}" (or the setting "art.${setting}")` : `"${name}"`;
    },
    key: async (o, needed) => {
      if (!needed) return {};
      const k = await d.runner.keyHosts.keyFor(o, { program: typeof o.program === 'string' ? o.program : undefined });
      for (const note of k.notes) d.log.info(`${d.tool}: ${note}`);
      if (k.cancelled) return { note: `key: not sent: ${k.cancelled}: the run goes on without a key` };
      if (k.key) keys.push(k.key);
      return { key: k.key };
    },
    chatModel: async (o, purpose) => (o.modelSource === 'vscode' ? provideChatModel(String(o.vscodeModel ?? ''), purpose) : undefined),
    secrets: () => keys,
    userToolsRefused: undefined,
    trusted: vscode.workspace.isTrusted,
    limits,
    runs: { folder: d.settings(scopeOf()).runsFolder, gitignore: d.settings(scopeOf()).runsGitignore },
    concurrency: d.settings(scopeOf()).evaluationConcurrency,
    slots: d.slots,
    signal: d.signal,
    progress: message => d.progress(message),
    log: line => d.log.info(`${d.tool}: ${line}`),
    sessions: d.sessions,
    views: editorViews(d),
  };
}

/**
 * The real path of a path the caller gave (absolute, a file URI, or relative to `from`) when it lies in a workspace
 * folder or one of `also`, else a one-line error naming it and the folders (the agent may be prompt-injected: it gets
 * the workspace the person opened, not the rest of the disk). A path naming `..` is refused: the system follows a link
 * before the `..` after it, so `link/../x` is not the `x` beside the link that a check of the path's text would see.
 */
function confined(given: string, what: string, from: string, also: readonly string[]): string {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter(f => f.uri.scheme === 'file').map(f => f.uri.fsPath);
  let path: string | undefined;
  if (/^[a-z][\w+.-]+:\/\//i.test(given)) {
    const uri = vscode.Uri.parse(given);
    path = uri.scheme === 'file' ? uri.fsPath : undefined;
  } else if (isAbsolute(given) || /^[a-zA-Z]:[\\/]/.test(given)) path = given;
  else if (from) path = resolve(from, given);
  else throw new CliError(`${given}: a relative path needs an open workspace folder: open one`);
  const dotdot = given.split(/[\\/]/).includes('..');
  const real = path === undefined || dotdot ? undefined : realPath(path);
  if (real !== undefined && [...folders, ...also].some(f => isInside(realPath(f), real))) return real;
  const where = [...folders, ...also].join(', ') || 'none open';
  throw new CliError(
    `${what === 'file' ? '' : `${what} `}${given}: outside the workspace folders (${where}): the ART tools act only on files of the open workspace; give a path inside it`,
  );
}

const SEVERITY: Record<vscode.DiagnosticSeverity, FileDiagnostic['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

/** Where the tools' work appears in the editor. */
function editorViews(d: EditorHostDeps): EditorViews {
  return {
    diagnostics: async paths => {
      const all: FileDiagnostic[] = [];
      for (const path of paths) {
        let doc: vscode.TextDocument;
        try {
          doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path));
        } catch (e) {
          throw new CliError(
            `${vscode.workspace.asRelativePath(path)}: cannot open it (${(e as Error).message}): check the path (relative paths start at the workspace folder)`,
          );
        }
        for (const x of await publishedDiagnostics(doc, d.signal))
          all.push({
            file: path,
            range: {
              start: { line: x.range.start.line, character: x.range.start.character },
              end: { line: x.range.end.line, character: x.range.end.character },
            },
            severity: SEVERITY[x.severity],
            code: x.code === undefined ? '' : typeof x.code === 'object' ? String(x.code.value) : String(x.code),
            message: x.message,
          });
      }
      return all;
    },
    showEvaluation: async resultsPath => {
      await d.runner.evaluations.open(resultsPath);
    },
    proposeLibrary: async (library, end) => {
      await d.runner.improvements.propose(vscode.Uri.file(library), end);
      return 'the person decides: Accept writes the demonstrations into the library, Discard leaves it';
    },
    showText: async (title, text) => {
      await d.runner.streams.showText(title, text);
    },
  };
}

/** The document's diagnostics once the language server has published them (a clean file may publish none new: 5 s). */
async function publishedDiagnostics(doc: vscode.TextDocument, signal: AbortSignal): Promise<readonly vscode.Diagnostic[]> {
  if (!['art', 'art-agent'].includes(doc.languageId))
    throw new CliError(`${vscode.workspace.asRelativePath(doc.uri)} is not an ART file (.art or .agent): open or name one`);
  const uri = doc.uri.toString();
  // A document just opened has no diagnostics until the server's first publication for it (an empty list counts).
  const published = vscode.languages.getDiagnostics().some(([u]) => u.toString() === uri);
  if (!published) {
    await new Promise<void>(resolveWait => {
      const subs = [
        vscode.languages.onDidChangeDiagnostics(e => {
          if (e.uris.some(u => u.toString() === uri)) finish();
        }),
      ];
      const timer = setTimeout(() => finish(), 5000);
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', finish);
        for (const s of subs) s.dispose();
        resolveWait();
      };
      signal.addEventListener('abort', finish, { once: true });
    });
  }
  return vscode.languages.getDiagnostics(doc.uri);
}
