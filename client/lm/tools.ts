// The editor's language model tools (`contributes.languageModelTools`, registered with vscode.lm.registerTool): the
// operations of `art mcp` (check, show the prompt, step a debug session, run the programs as tests, evaluate, improve) for
// the editor's own agent mode, acting on what the person has in front of them: the active document and its
// diagnostics, the ART debug session in progress (its pause, an override of the paused tool's output, continue,
// step back: the agent sees what the person sees), the Test Explorer and the evaluation view. The tools that run
// code or call a model ask first (prepareInvocation); none acts in an untrusted workspace. What they answer is
// built by stops.ts (no vscode import) in the shapes of `art mcp`'s answers.
import * as vscode from 'vscode';
import { isInside, realPath } from '../../core/common/folders';
import { companionsOf } from '../../core/launch/companions';
import { DEBUG_TYPE, EndEvent, SetToolOutputRequest, StateRequest } from '../debugAdapter/protocol';
import type { RunnerApi } from '../runner/activate';
import { SHOW_PROMPT_COMMAND } from '../runner/showPrompt';
import {
  describeDiagnostics,
  describeTestOutcomes,
  describeView,
  viewOfEnd,
  viewOfState,
  type DiagnosticLine,
  type SessionView,
  type TestOutcomeLine,
} from './stops';
import { LM_TOOLS } from './names';

export const UNTRUSTED_TOOL_MESSAGE =
  'ART Studio: this workspace is not trusted: its language model tools do nothing until it is (Manage Workspace Trust).';

/** A debug adapter message, as a tracker sees it. */
interface DapMessage {
  type: string;
  event?: string;
  command?: string;
  body?: unknown;
}

/** What a session did next: paused (on a thread), its run ended, or the session went away. */
type Next = { kind: 'stopped'; threadId?: number } | { kind: 'end'; body: EndEvent.Body } | { kind: 'exit' };

/**
 * The ART debug sessions the tools act on, watched through a debug adapter tracker: which thread each last stopped
 * on, how its last run ended, and a way to await what a session does next.
 */
export class ArtSessions implements vscode.Disposable {
  private readonly live: vscode.DebugSession[] = [];
  private readonly waiters = new Map<string, Set<(n: Next) => void>>();
  private readonly threads = new Map<string, number>();
  private readonly ends = new Map<string, EndEvent.Body>();
  private readonly subscriptions: vscode.Disposable[];

  constructor() {
    this.subscriptions = [
      vscode.debug.onDidStartDebugSession(s => {
        if (s.type === DEBUG_TYPE) this.live.push(s);
      }),
      vscode.debug.onDidTerminateDebugSession(s => {
        const i = this.live.indexOf(s);
        if (i >= 0) this.live.splice(i, 1);
        this.notify(s.id, { kind: 'exit' });
      }),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: session => ({
          onDidSendMessage: (m: DapMessage) => {
            if (m.type !== 'event') return;
            if (m.event === 'stopped') {
              const threadId = (m.body as { threadId?: number } | undefined)?.threadId;
              if (threadId !== undefined) this.threads.set(session.id, threadId);
              this.ends.delete(session.id);
              this.notify(session.id, { kind: 'stopped', threadId });
            } else if (m.event === EndEvent.event) {
              const body = m.body as EndEvent.Body;
              // A self-consistency run ends once per sample, the last with `sample` set: the session's end is that one.
              this.ends.set(session.id, body);
              this.notify(session.id, { kind: 'end', body });
            }
          },
          onExit: () => this.notify(session.id, { kind: 'exit' }),
        }),
      }),
    ];
  }

  /** The session the person is looking at: the active debug session when it is an ART one, else the latest ART one. */
  current(): vscode.DebugSession | undefined {
    const active = vscode.debug.activeDebugSession;
    if (active?.type === DEBUG_TYPE) return active;
    return this.live.at(-1);
  }

  /** The thread the session last stopped on (a self-consistency run's sample), if any. */
  threadOf(session: vscode.DebugSession): number | undefined {
    return this.threads.get(session.id);
  }

  /** How the session's last run ended, when it has ended and not paused since. */
  endOf(session: vscode.DebugSession): EndEvent.Body | undefined {
    return this.ends.get(session.id);
  }

  /** Resolves with what the session does next after `go` (registered before `go` runs, so nothing is missed). */
  async next(session: vscode.DebugSession, go: () => Thenable<unknown>, token: vscode.CancellationToken): Promise<Next> {
    let resolve!: (n: Next) => void;
    const done = new Promise<Next>(r => (resolve = r));
    const set = this.waiters.get(session.id) ?? new Set();
    this.waiters.set(session.id, set);
    set.add(resolve);
    const cancel = token.onCancellationRequested(() => resolve({ kind: 'exit' }));
    try {
      await go();
      return await done;
    } finally {
      set.delete(resolve);
      cancel.dispose();
    }
  }

  private notify(id: string, n: Next): void {
    for (const w of this.waiters.get(id) ?? []) w(n);
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

export interface LmToolsDeps {
  runner: RunnerApi;
  log: vscode.LogOutputChannel;
}

interface FileInput {
  /** A workspace-relative or absolute path; default: the active editor's document. */
  file?: string;
}
interface OutputInput {
  output: string;
}
interface ContinueInput {
  output?: string;
}
interface EvaluateInput {
  library?: string;
  data: string;
  task?: string | number;
}

interface ImproveInput {
  library?: string;
  train: string;
  dev?: string;
  test?: string;
  seed?: number;
  budget?: number;
  task?: string | number;
}

const text = (s: string) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(s)]);

/** A tool's failure: thrown, the agent reads the message. One line naming what to do. */
class ToolError extends Error {}

function requireTrust(): void {
  if (!vscode.workspace.isTrusted) throw new ToolError(UNTRUSTED_TOOL_MESSAGE);
}

/**
 * A path the model gave, as a URI: absolute, or relative to the (first) workspace folder; refused unless it lies in a
 * workspace folder, symbolic links followed (the agent may be prompt-injected: it gets the workspace the person
 * opened, not the rest of the disk). A path naming `..` is refused: the system follows a link before the `..` after
 * it, so `link/../x` is not the `x` beside the link that a check of the path's text would see.
 */
function uriOf(file: string): vscode.Uri {
  const folders = vscode.workspace.workspaceFolders ?? [];
  let uri: vscode.Uri;
  if (/^[a-z][\w+.-]+:\/\//i.test(file)) uri = vscode.Uri.parse(file);
  else if (file.startsWith('/') || /^[a-zA-Z]:[\\/]/.test(file)) uri = vscode.Uri.file(file);
  else if (folders[0]) uri = vscode.Uri.joinPath(folders[0].uri, file);
  else throw new ToolError(`${file}: a relative path needs an open workspace folder: open one`);
  return confined(uri, file);
}

/** `uri` when it lies in a workspace folder, else a ToolError naming `shown`. */
function confined(uri: vscode.Uri, shown: string): vscode.Uri {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const inWorkspace = (path: string) => folders.some(f => f.uri.scheme === 'file' && isInside(realPath(f.uri.fsPath), realPath(path)));
  const inside = uri.path.split('/').includes('..')
    ? false
    : uri.scheme === 'file'
      ? inWorkspace(uri.fsPath)
      : vscode.workspace.getWorkspaceFolder(uri) !== undefined;
  // A file's companions read by name (a spec's NAME.preamble.txt) are confined as the file is.
  const out = !inside ? shown : uri.scheme === 'file' ? companionsOf(uri.fsPath).find(c => !inWorkspace(c)) : undefined;
  if (out === undefined) return uri;
  throw new ToolError(
    `${out}: outside the workspace folders (${folders.map(f => f.uri.fsPath).join(', ') || 'none open'}): the ART tools act only on files of the open workspace; give a path inside it`,
  );
}

/** The task library a tool runs (and writes beside: results, a proposal): the one named, else the active editor's. */
function libraryOf(given: string | undefined): vscode.Uri {
  const library = given ? uriOf(given) : vscode.window.activeTextEditor?.document.uri;
  if (!library?.path.endsWith('.art')) throw new ToolError('give "library" (a task library, .art) or open one in the editor');
  return given ? library : confined(library, vscode.workspace.asRelativePath(library));
}

/** The document a tool acts on: the one named, else the active editor's. */
async function documentOf(input: FileInput | undefined): Promise<vscode.TextDocument> {
  if (input?.file) {
    try {
      return await vscode.workspace.openTextDocument(uriOf(input.file));
    } catch (e) {
      throw new ToolError(`${input.file}: cannot open it (${(e as Error).message}): check the path (relative paths start at the workspace folder)`);
    }
  }
  const doc = vscode.window.activeTextEditor?.document;
  if (!doc) throw new ToolError('no file is open in the editor: give "file" (a path in the workspace)');
  return doc;
}

const SEVERITY: Record<vscode.DiagnosticSeverity, DiagnosticLine['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'information',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

function diagnosticLines(uri: vscode.Uri): DiagnosticLine[] {
  return vscode.languages.getDiagnostics(uri).map(d => ({
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    severity: SEVERITY[d.severity],
    code: d.code === undefined ? undefined : typeof d.code === 'object' ? String(d.code.value) : String(d.code),
    message: d.message,
  }));
}

/** The document's diagnostics once the language server has published them for its current version. */
async function diagnosticsOf(doc: vscode.TextDocument, token: vscode.CancellationToken): Promise<DiagnosticLine[]> {
  if (!['art', 'art-agent'].includes(doc.languageId)) {
    throw new ToolError(`${vscode.workspace.asRelativePath(doc.uri)} is not an ART file (.art or .agent): open or name one`);
  }
  const uri = doc.uri.toString();
  // A document just opened has no diagnostics until the server's first publication for it (an empty list counts).
  const published = vscode.languages.getDiagnostics().some(([u]) => u.toString() === uri);
  if (!published) {
    await new Promise<void>(resolve => {
      const subs = [
        vscode.languages.onDidChangeDiagnostics(e => {
          if (e.uris.some(u => u.toString() === uri)) finish();
        }),
        token.onCancellationRequested(() => finish()),
      ];
      // A clean file opened for the first time may publish nothing new: the check gives up waiting after 5 s.
      const timer = setTimeout(() => finish(), 5000);
      const finish = () => {
        clearTimeout(timer);
        for (const s of subs) s.dispose();
        resolve();
      };
    });
  }
  return diagnosticLines(doc.uri);
}

/** Registers the tools; each is also declared in package.json (`contributes.languageModelTools`). */
export function registerLanguageModelTools(deps: LmToolsDeps): vscode.Disposable {
  const sessions = new ArtSessions();

  const requireSession = (): vscode.DebugSession => {
    const s = sessions.current();
    if (!s) throw new ToolError('no ART debug session is running: start one (Run and Debug, or the Debug CodeLens above a program)');
    return s;
  };
  const stateOf = async (s: vscode.DebugSession): Promise<SessionView> => {
    const state = (await s.customRequest(StateRequest.command, { threadId: sessions.threadOf(s) })) as StateRequest.Response;
    const end = sessions.endOf(s);
    if (state.state !== 'paused' && end) return viewOfEnd(s.name, end);
    return viewOfState(s.name, state);
  };
  const requirePaused = async (s: vscode.DebugSession): Promise<SessionView> => {
    const view = await stateOf(s);
    if (view.status !== 'paused') throw new ToolError(`${describeView(view).split('\n')[0]}: the debug session is not paused`);
    return view;
  };
  /** Does `go` and answers with the session's next pause or its end. */
  const stepped = async (s: vscode.DebugSession, go: () => Thenable<unknown>, token: vscode.CancellationToken) => {
    const next = await sessions.next(s, go, token);
    if (next.kind === 'end') return describeView(viewOfEnd(s.name, next.body));
    if (next.kind === 'exit') return `debug session ${s.name} ended${token.isCancellationRequested ? ' (the request was cancelled)' : ''}`;
    return describeView(await stateOf(s));
  };

  const tools: [string, vscode.LanguageModelTool<never>][] = [
    [
      LM_TOOLS.check,
      {
        prepareInvocation: () => ({ invocationMessage: 'Reading the problems of the ART file' }),
        invoke: async (o: vscode.LanguageModelToolInvocationOptions<FileInput>, token) => {
          requireTrust();
          const doc = await documentOf(o.input);
          return text(describeDiagnostics(vscode.workspace.asRelativePath(doc.uri), await diagnosticsOf(doc, token)));
        },
      },
    ],
    [
      LM_TOOLS.showPrompt,
      {
        prepareInvocation: (o: vscode.LanguageModelToolInvocationPrepareOptions<FileInput>) =>
          // In a debug session the prompt is the adapter's; otherwise building it may ask the model (llm selection).
          !o.input?.file && sessions.current()
            ? { invocationMessage: 'Reading the prompt of the debugged run' }
            : {
                invocationMessage: 'Building the prompt of the program',
                confirmationMessages: {
                  title: 'ART Studio: build the prompt?',
                  message: 'Building the prompt of the program at the cursor may call the model (when demonstrations are chosen by it).',
                },
              },
        invoke: async (o: vscode.LanguageModelToolInvocationOptions<FileInput>) => {
          requireTrust();
          const target = o.input?.file ? uriOf(o.input.file) : undefined;
          const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>(SHOW_PROMPT_COMMAND, target);
          if (!editor) throw new ToolError('there is no prompt to show: open an .art or .agent file, or start a debug session');
          return text(editor.document.getText());
        },
      },
    ],
    [
      LM_TOOLS.debugState,
      {
        prepareInvocation: () => ({ invocationMessage: 'Reading where the ART debug session stands' }),
        invoke: async () => {
          requireTrust();
          return text(describeView(await stateOf(requireSession())));
        },
      },
    ],
    [
      LM_TOOLS.debugSetOutput,
      {
        prepareInvocation: (o: vscode.LanguageModelToolInvocationPrepareOptions<OutputInput>) => ({
          invocationMessage: `Setting the paused tool's output to ${JSON.stringify(o.input.output)}`,
        }),
        invoke: async (o: vscode.LanguageModelToolInvocationOptions<OutputInput>) => {
          requireTrust();
          const s = requireSession();
          const view = await requirePaused(s);
          if (view.status !== 'paused' || view.tool === undefined)
            throw new ToolError('the debug session is not paused at a tool call: there is no output to set');
          await s.customRequest(SetToolOutputRequest.command, {
            text: o.input.output,
            threadId: sessions.threadOf(s),
          } satisfies SetToolOutputRequest.Arguments);
          return text(describeView(await stateOf(s)));
        },
      },
    ],
    [
      LM_TOOLS.debugContinue,
      {
        prepareInvocation: (o: vscode.LanguageModelToolInvocationPrepareOptions<ContinueInput>) => ({
          invocationMessage: 'Continuing the ART debug session',
          confirmationMessages: {
            title: 'ART Studio: continue the debug session?',
            message:
              (o.input?.output !== undefined ? `The paused tool's output becomes ${JSON.stringify(o.input.output)}. ` : '') +
              'The run goes on to its next pause or its end: its tools run code and a live run calls the model.',
          },
        }),
        invoke: async (o: vscode.LanguageModelToolInvocationOptions<ContinueInput>, token) => {
          requireTrust();
          const s = requireSession();
          const view = await requirePaused(s);
          const threadId = sessions.threadOf(s);
          if (o.input?.output !== undefined) {
            if (view.status !== 'paused' || view.tool === undefined)
              throw new ToolError('the debug session is not paused at a tool call: continue without "output"');
            await s.customRequest(SetToolOutputRequest.command, { text: o.input.output, threadId } satisfies SetToolOutputRequest.Arguments);
          }
          return text(await stepped(s, () => s.customRequest('continue', { threadId: threadId ?? 1 }), token));
        },
      },
    ],
    [
      LM_TOOLS.debugStepBack,
      {
        prepareInvocation: () => ({ invocationMessage: 'Stepping the ART debug session back to its previous pause' }),
        invoke: async (_o, token) => {
          requireTrust();
          const s = requireSession();
          const view = await requirePaused(s);
          if (view.status === 'paused' && view.canStepBack === false)
            throw new ToolError('the debug session is at its first pause: there is nothing to step back to');
          const threadId = sessions.threadOf(s) ?? 1;
          return text(await stepped(s, () => s.customRequest('stepBack', { threadId }), token));
        },
      },
    ],
    [
      LM_TOOLS.runTests,
      {
        prepareInvocation: (o: vscode.LanguageModelToolInvocationPrepareOptions<FileInput>) => ({
          invocationMessage: 'Running the programs as tests',
          confirmationMessages: {
            title: 'ART Studio: run the programs as tests?',
            message: `Replays ${o.input?.file ? `the programs of ${o.input.file}` : "every program of the workspace's task libraries"} with their tools re-executed (Python code runs).`,
          },
        }),
        invoke: async (o: vscode.LanguageModelToolInvocationOptions<FileInput>) => {
          requireTrust();
          const tests = deps.runner.tests;
          await tests.discover();
          let files = [...iterate(tests.controller.items)];
          if (o.input?.file) {
            const uri = uriOf(o.input.file).toString();
            files = files.filter(f => f.uri?.toString() === uri);
            if (!files.length)
              throw new ToolError(`${o.input.file} has no programs in the Test Explorer: name a task library (.art) with demonstrations`);
          }
          await tests.run(o.input?.file ? files : undefined);
          const outcomes: TestOutcomeLine[] = files.flatMap(f =>
            [...iterate(f.children)].flatMap(item => {
              const got = tests.outcomes.get(item.id);
              return got ? [{ label: item.label, file: f.label, passed: got.passed, messages: got.messages }] : [];
            }),
          );
          return text(describeTestOutcomes(outcomes));
        },
      },
    ],
    [
      LM_TOOLS.evaluate,
      {
        prepareInvocation: (o: vscode.LanguageModelToolInvocationPrepareOptions<EvaluateInput>) => ({
          invocationMessage: `Evaluating on ${o.input.data}`,
          confirmationMessages: {
            title: 'ART Studio: evaluate the task?',
            message: `Runs ${o.input.library ?? 'the active task library'} on every example of ${o.input.data}: each run calls the model and runs tools.`,
          },
        }),
        invoke: async (o: vscode.LanguageModelToolInvocationOptions<EvaluateInput>, token) => {
          requireTrust();
          const library = libraryOf(o.input.library);
          const outcome = await deps.runner.evaluations.run(library, uriOf(o.input.data), o.input.task, token);
          if (!outcome) throw new ToolError('the evaluation did not run: its notification says why (the model settings, the dataset)');
          const r = outcome.report;
          return text(
            [...r.summaryLines, `results: ${r.results}`, ...(r.stopped ? [`stopped with ${r.rows.length} of ${r.total} examples done`] : [])].join(
              '\n',
            ),
          );
        },
      },
    ],
    [
      LM_TOOLS.improve,
      {
        prepareInvocation: (o: vscode.LanguageModelToolInvocationPrepareOptions<ImproveInput>) => ({
          invocationMessage: `Improving ${o.input.library ?? 'the task library'} from ${o.input.train}`,
          confirmationMessages: {
            title: 'ART Studio: improve the library?',
            message: `Runs ${o.input.library ?? 'the active task library'} on the training, dev and test examples (at most ${o.input.budget ?? 1000} model requests, tools run) and proposes a new library beside it; you Accept or Discard it.`,
          },
        }),
        invoke: async (o: vscode.LanguageModelToolInvocationOptions<ImproveInput>, token) => {
          requireTrust();
          const i = o.input;
          const library = libraryOf(i.library);
          if (!i.dev !== !i.test) throw new ToolError('give both "dev" and "test", or neither (then "train" is split in three by "seed")');
          const splits =
            i.dev && i.test ? { train: uriOf(i.train), dev: uriOf(i.dev), test: uriOf(i.test) } : { data: uriOf(i.train), seed: i.seed ?? 0 };
          const end = await deps.runner.improvements.run(library, { splits, task: i.task, budget: i.budget, seed: i.seed, token });
          if (!end) throw new ToolError('nothing was proposed: the notification says why (the model settings, the data, the budget, a stop)');
          return text(
            [
              `proposed: ${end.out} (${end.added.length} demonstration(s) added: ${end.added.map(a => a.id).join(', ') || 'none'})`,
              `test: ${end.baseline.correct}/${end.baseline.n} → ${end.improved.correct}/${end.improved.n}, McNemar p = ${end.pValue.toPrecision(3)}: ${end.significant ? 'a significant gain' : 'no significant gain'}`,
              `requests: ${end.requests} of ${end.plan.budget}`,
              'the person decides: Accept writes the demonstrations into the library, Discard leaves it',
            ].join('\n'),
          );
        },
      },
    ],
  ];

  const registered = tools.map(([name, tool]) => vscode.lm.registerTool(name, wrapErrors(name, tool, deps.log)));
  return vscode.Disposable.from(sessions, ...registered);
}

/** A tool's ToolError reaches the agent as its message; anything else is logged with its stack, then thrown. */
function wrapErrors<T>(name: string, tool: vscode.LanguageModelTool<T>, log: vscode.LogOutputChannel): vscode.LanguageModelTool<T> {
  return {
    prepareInvocation: tool.prepareInvocation?.bind(tool),
    invoke: async (o, token) => {
      try {
        return await tool.invoke(o, token);
      } catch (e) {
        if (e instanceof ToolError) throw e;
        log.error(`language model tool ${name}: ${(e as Error).stack ?? String(e)}`);
        throw new Error(`${name} failed: ${(e as Error).message ?? String(e)} (the "ART Studio" output has the details)`);
      }
    },
  };
}

function* iterate(c: vscode.TestItemCollection): Generator<vscode.TestItem> {
  for (const [, item] of c) yield item;
}
