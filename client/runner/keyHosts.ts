// Where every run the extension starts gets its API key: the stored key (SecretStorage, "ART: Set API Key"), else
// the environment variable `apiKeyEnv` names, and the key host rule (core/launch/apiKey.ts): the key goes to an
// endpoint other than the user's own `art.model.baseURL` (its user level or default, never a workspace's: the setting
// is machine-overridable, so a workspace may set it as launch.json may) only after a modal question, once per
// origin and key. Approvals are kept in globalState, the user's, so a workspace cannot approve itself; "ART: Forget
// Approved Key Hosts" withdraws them. Debug sessions (F5, the Run and Debug lenses, the Test Explorer's Debug),
// "ART: Evaluate Task" and "ART: Show Prompt" all read the key here.
import * as vscode from 'vscode';
import {
  KeyHostGate,
  mayCallEndpoint,
  RUN_WITHOUT_KEY,
  SEND_KEY,
  whereBaseURLSet,
  type KeyApproval,
  type KeyHostAnswer,
  type KeyHostQuestion,
  type KeyOptions,
  type KeySource,
  type RunKey,
} from '../../core/launch/apiKey';
import { RUN_OPTIONS } from '../../core/launch/options';
import { API_KEY_SECRET } from './commands';

export const FORGET_KEY_HOSTS_COMMAND = 'art.forgetKeyHosts';
/** The globalState key of the approvals. */
const APPROVALS = 'art.keyHosts.approved';

/** A run the user chose not to start when asked (Cancel): the message says why, as a sentence's end. */
export class KeyNotSent extends Error {}

/**
 * A long run's failure as the user is told it (Evaluate Task, Improve Library): a key the user chose not to send is
 * information (`notStarted` says what did not happen), an error of the user's input or setup one line; anything else
 * is thrown again.
 */
export function showRunFailure(e: unknown, isUserError: (e: unknown) => boolean, notStarted: string): undefined {
  if (e instanceof KeyNotSent) {
    void vscode.window.showInformationMessage(`ART Studio: ${notStarted}: ${e.message}.`);
    return undefined;
  }
  if (!isUserError(e)) throw e;
  void vscode.window.showErrorMessage(`ART Studio: ${(e as Error).message}`);
  return undefined;
}

export type AskKeyHost = (q: KeyHostQuestion) => PromiseLike<KeyHostAnswer>;

/** The question as a modal warning: Send Key, Run Without Key, or the modal's own Cancel. */
export async function askKeyHostModal(q: KeyHostQuestion): Promise<KeyHostAnswer> {
  const choice = await vscode.window.showWarningMessage(q.message, { modal: true, detail: q.detail }, SEND_KEY, RUN_WITHOUT_KEY);
  return choice === SEND_KEY ? 'send' : choice === RUN_WITHOUT_KEY ? 'withhold' : 'cancel';
}

/** Who started the run: the program (its folder's settings) and, for a debug session, the launch configuration's name. */
export interface KeyRunContext {
  program?: string;
  launchName?: string;
}

export interface KeyHostsDeps {
  secrets: vscode.SecretStorage;
  /** The extension's globalState (never workspaceState). */
  globalState: vscode.Memento;
  /** Extension mode Test: the integration tests may answer the question instead of the modal. */
  testMode: boolean;
  /** Where `apiKeyEnv` is looked up (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export class KeyHosts {
  private ask: AskKeyHost = askKeyHostModal;
  private readonly gate: KeyHostGate;

  constructor(private readonly deps: KeyHostsDeps) {
    this.gate = new KeyHostGate({
      store: { approved: () => this.approved(), approve: a => this.deps.globalState.update(APPROVALS, [...this.approved(), a]) },
      ask: q => this.ask(q),
    });
  }

  /** The hosts the user let a key go to. */
  approved(): KeyApproval[] {
    const v = this.deps.globalState.get<unknown>(APPROVALS);
    return Array.isArray(v) ? v.filter((a): a is KeyApproval => typeof a?.origin === 'string' && typeof a?.key === 'string') : [];
  }

  /** The key of a run of `o` (none when it may call no endpoint), asking first when it would go to another host. */
  async keyFor(o: KeyOptions, ctx: KeyRunContext = {}): Promise<RunKey> {
    if (!mayCallEndpoint(o)) return { key: undefined, notes: [] };
    const scope = ctx.program ? vscode.Uri.file(ctx.program) : undefined;
    const c = vscode.workspace.getConfiguration('art', scope);
    const base = c.inspect<string>('model.baseURL');
    const stored = await this.deps.secrets.get(API_KEY_SECRET);
    const fromEnv = (this.deps.env ?? process.env)[o.apiKeyEnv] || undefined;
    let key: { value: string; source: KeySource } | undefined;
    if (stored) key = { value: stored, source: { kind: 'stored' } };
    else if (fromEnv) {
      const keyEnv = c.inspect<string>('model.apiKeyEnv');
      const yours = keyEnv?.globalValue || RUN_OPTIONS.apiKeyEnv.schema.parse(undefined);
      key = { value: fromEnv, source: { kind: 'env', name: o.apiKeyEnv, namedByWorkspace: o.apiKeyEnv !== yours } };
    }
    const folder = scope && vscode.workspace.getWorkspaceFolder(scope)?.name;
    const levels = { user: base?.globalValue, workspace: base?.workspaceValue, folder: base?.workspaceFolderValue, folderName: folder };
    const launch = ctx.launchName ? { name: ctx.launchName, folderName: folder } : undefined;
    return this.gate.keyFor({
      userBaseURL: base?.globalValue || base?.defaultValue,
      runBaseURL: o.baseURL,
      key,
      where: o.baseURL ? whereBaseURLSet(o.baseURL, levels, launch) : '',
    });
  }

  /** Withdraws every approval (and this window's "Run Without Key" answers); returns the approvals withdrawn. */
  async forget(): Promise<KeyApproval[]> {
    const was = this.approved();
    await this.deps.globalState.update(APPROVALS, undefined);
    this.gate.forgetWithheld();
    return was;
  }

  /** "ART: Forget Approved Key Hosts". */
  async forgetCommand(): Promise<KeyApproval[]> {
    const was = await this.forget();
    const list = was.map(a => `${a.origin} (${a.key === 'stored' ? 'the stored key' : a.key.replace(/^env:/, '$')})`).join(', ');
    void vscode.window.showInformationMessage(
      was.length
        ? `ART Studio: no host is approved any more (${list}); a run that would send a key to another host than your setting asks again.`
        : `ART Studio: no host was approved; a run that would send a key to another host than your setting asks first.`,
    );
    return was;
  }

  /** The integration tests (extension mode Test only): answer the question with `ask` instead of the modal; none: the modal again. */
  answerWith(ask: AskKeyHost | undefined): void {
    if (!this.deps.testMode) throw new Error('ART Studio: the key host question is answered by the user, except in the extension tests');
    this.ask = ask ?? askKeyHostModal;
  }
}
