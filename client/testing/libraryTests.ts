// Programs as tests in VS Code's Test Explorer: every demonstration of the workspace's task libraries is a test,
// grouped by file, found when the Test Explorer first asks and kept up to date as files change. Running one replays
// it with its tools re-executed (core/evaluation/libraryTest.ts, the same check as `art test`); a failure shows each
// differing step at its line with the recorded and the new output side by side. Debugging one starts a replay in the
// debugger. The core is loaded with the runner bundle on first use, so activation stays cheap.
import * as vscode from 'vscode';
import type { LibraryTestsModule } from '../runnerServices';
import { DEBUG_TYPE } from '../debugAdapter/protocol';

const TESTS_GLOB = '**/*.art';
// ART Studio's own folder (.art: the run history, `art improve`'s candidate libraries) holds no library of the person's.
const EXCLUDE = '{**/node_modules/**,**/.git/**,**/.art/**}';

export interface LibraryTestsDeps {
  /** The runner bundle's library-test functions (loaded on first use). */
  load: () => LibraryTestsModule;
  log: vscode.LogOutputChannel;
  /** The tool options of a run (Python, corpus, tool file) for a file, from the settings. */
  /** The run options the settings give for a file (the tools' settings among them). */
  runOptions: (uri: vscode.Uri) => Record<string, unknown>;
}

/** The Test Explorer's controller, and the outcome of each program's last run (by test id: what the run showed). */
export interface LibraryTests {
  controller: vscode.TestController;
  outcomes: Map<string, { passed: boolean; messages: string[] }>;
  /** Lists the workspace's programs (what the Test Explorer does when first opened). */
  discover(): Promise<void>;
  /** Runs the programs of the given items (all when none) with the run profile. */
  run(items?: vscode.TestItem[]): Promise<void>;
}

export function registerLibraryTests(context: vscode.ExtensionContext, deps: LibraryTestsDeps): LibraryTests {
  const ctrl = vscode.tests.createTestController('art.libraries', 'ART task libraries');
  const outcomes = new Map<string, { passed: boolean; messages: string[] }>();
  context.subscriptions.push(ctrl);
  /** The test item of each program: its file's item and its index. */
  const programs = new WeakMap<vscode.TestItem, { file: vscode.TestItem; index: number }>();

  const refresh = (uri: vscode.Uri, text: string): void => {
    const id = uri.toString();
    let demos: { index: number; title: string; line: number }[];
    try {
      demos = deps.load().listDemonstrations(text);
    } catch (e) {
      deps.log.warn(`Test Explorer: cannot read ${uri.fsPath}: ${(e as Error).message}`);
      return;
    }
    if (!demos.length) {
      ctrl.items.delete(id);
      return;
    }
    const file = ctrl.items.get(id) ?? ctrl.createTestItem(id, vscode.workspace.asRelativePath(uri), uri);
    file.children.replace(
      demos.map(d => {
        const item = ctrl.createTestItem(`${id}#${d.index}`, `${d.index}: ${d.title}`, uri);
        item.range = new vscode.Range(d.line, 0, d.line, 0);
        programs.set(item, { file, index: d.index });
        return item;
      }),
    );
    ctrl.items.add(file);
  };
  const refreshFile = async (uri: vscode.Uri) => {
    if (uri.path.includes('/.art/')) return;
    const open = vscode.workspace.textDocuments.find(d => d.uri.toString() === uri.toString());
    try {
      refresh(uri, open ? open.getText() : new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
    } catch {
      ctrl.items.delete(uri.toString());
    }
  };

  let watching = false;
  ctrl.resolveHandler = async item => {
    if (item) return;
    for (const uri of await vscode.workspace.findFiles(TESTS_GLOB, EXCLUDE)) await refreshFile(uri);
    if (watching) return;
    watching = true;
    const watcher = vscode.workspace.createFileSystemWatcher(TESTS_GLOB);
    context.subscriptions.push(
      watcher,
      watcher.onDidCreate(uri => void refreshFile(uri)),
      watcher.onDidChange(uri => void refreshFile(uri)),
      watcher.onDidDelete(uri => ctrl.items.delete(uri.toString())),
      vscode.workspace.onDidChangeTextDocument(e => {
        if (e.document.uri.scheme === 'file' && e.document.languageId === 'art') refresh(e.document.uri, e.document.getText());
      }),
    );
  };

  /** The program items a request names (a file stands for all its programs), without the excluded ones. */
  const requested = (request: vscode.TestRunRequest): vscode.TestItem[] => {
    const roots = request.include ?? [...iterate(ctrl.items)];
    const out: vscode.TestItem[] = [];
    for (const item of roots) {
      const items = programs.has(item) ? [item] : [...iterate(item.children)];
      for (const p of items) if (!request.exclude?.includes(p)) out.push(p);
    }
    return out;
  };

  const runProfile = ctrl.createRunProfile(
    'Replay and compare',
    vscode.TestRunProfileKind.Run,
    async (request, token) => {
      if (!ctrl.items.size) await ctrl.resolveHandler?.(undefined);
      const run = ctrl.createTestRun(request);
      const items = requested(request);
      if (!vscode.workspace.isTrusted) {
        for (const item of items)
          run.errored(item, new vscode.TestMessage('This workspace is not trusted: no tool runs (trust it to run the programs).'));
        run.end();
        return;
      }
      const byFile = new Map<vscode.TestItem, vscode.TestItem[]>();
      for (const item of items) {
        const file = programs.get(item)!.file;
        byFile.set(file, [...(byFile.get(file) ?? []), item]);
        run.enqueued(item);
      }
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      try {
        for (const [file, fileItems] of byFile) {
          const uri = file.uri!;
          const folder = vscode.workspace.getWorkspaceFolder(uri);
          const doc = await vscode.workspace.openTextDocument(uri);
          for (const item of fileItems) {
            if (token.isCancellationRequested) break;
            run.started(item);
            const t0 = Date.now();
            const result = await deps.load().testProgram(doc.getText(), programs.get(item)!.index, {
              path: uri.fsPath,
              workspaceRoot: folder?.uri.fsPath ?? vscode.Uri.joinPath(uri, '..').fsPath,
              runOptions: deps.runOptions(uri),
              signal: abort.signal,
            });
            const duration = Date.now() - t0;
            const messages = result.passed ? [] : failureMessages(uri, result);
            outcomes.set(item.id, { passed: result.passed, messages: messages.map(m => describe(m)) });
            if (result.passed) run.passed(item, duration);
            else run.failed(item, messages, duration);
          }
        }
      } catch (e) {
        deps.log.error(`Test Explorer: ${(e as Error).message}`);
        for (const item of items) run.errored(item, new vscode.TestMessage((e as Error).message));
      } finally {
        run.end();
      }
    },
    true,
  );

  ctrl.createRunProfile('Debug (replay)', vscode.TestRunProfileKind.Debug, async request => {
    const [item] = requested(request);
    if (!item) return;
    const { file, index } = programs.get(item)!;
    await vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(file.uri!), {
      type: DEBUG_TYPE,
      request: 'launch',
      name: `Replay ${item.label}`,
      program: file.uri!.fsPath,
      task: index,
      mode: 'replay',
    });
  });
  return {
    controller: ctrl,
    outcomes,
    discover: async () => ctrl.resolveHandler?.(undefined),
    run: async items => {
      const cts = new vscode.CancellationTokenSource();
      try {
        await runProfile.runHandler(new vscode.TestRunRequest(items), cts.token);
      } finally {
        cts.dispose();
      }
    },
  };
}

/** A message as text: its own, then the expected and actual outputs of a diff. */
function describe(m: vscode.TestMessage): string {
  const text = typeof m.message === 'string' ? m.message : m.message.value;
  return m.expectedOutput !== undefined ? `${text}\nrecorded: ${m.expectedOutput}\ngot: ${m.actualOutput}` : text;
}

/** One message per differing step, at its line, with the recorded and the new text to compare; the answer; the error. */
function failureMessages(
  uri: vscode.Uri,
  t: ReturnType<LibraryTestsModule['testProgram']> extends Promise<infer R> ? R : never,
): vscode.TestMessage[] {
  const out: vscode.TestMessage[] = [];
  for (const s of t.steps) {
    if (s.ok) continue;
    const m = vscode.TestMessage.diff(
      `#${s.step} [${s.tool}] ${s.error !== undefined ? `failed: ${s.error}` : 'differs from the recording'}`,
      s.recorded,
      s.error !== undefined ? `error: ${s.error}` : (s.got ?? ''),
    );
    m.location = new vscode.Location(uri, new vscode.Position(s.line, 0));
    out.push(m);
  }
  if (!t.answer.ok) {
    const m = vscode.TestMessage.diff('Ans: differs from the recording', t.answer.recorded ?? '(none)', t.answer.got ?? '(none)');
    m.location = new vscode.Location(uri, new vscode.Position(t.line, 0));
    out.push(m);
  }
  if (t.error !== undefined) {
    const m = new vscode.TestMessage(t.error);
    m.location = new vscode.Location(uri, new vscode.Position(t.line, 0));
    out.push(m);
  }
  return out;
}

function* iterate(c: vscode.TestItemCollection): Generator<vscode.TestItem> {
  const items: vscode.TestItem[] = [];
  c.forEach(i => items.push(i));
  yield* items;
}
