// The key rule: a run reads the API key only when it may call an endpoint, that is in generate mode, and in replay
// mode with an endpoint to go on live with once the run departs from its recording. The key itself is never a run
// option and never traced: `apiKeyEnv` names the environment variable that holds it (VS Code may keep it in
// SecretStorage instead).
//
// The key host rule (VS Code): a trusted workspace may choose the endpoint of its runs (launch.json's `baseURL`, its
// settings), but the key goes to an origin (scheme, host and port) other than that of the user's own setting only
// once the user said so. keyHostDecision says whether to ask; KeyHostGate asks once per origin and key, remembers
// approvals in the caller's store (never the workspace's) and says in the run's first lines what it did. Every key
// is treated alike, the stored one and an environment variable's (a workspace can name any variable, `apiKeyEnv`),
// and a local endpoint is no exception: a local port may be forwarded anywhere, or served by the workspace's tasks.
import type { RunOptions } from './options';
import { capabilitiesOf } from './modelSources';

/** Whether the prompt of a run asks the model before any step: demonstrations chosen by the model ("ART: Show Prompt"). */
export function promptAsksModel(o: KeyOptions & Pick<RunOptions, 'select'>): boolean {
  return mayCallEndpoint(o) && (o.select === 'llm' || o.select === 'best-cluster');
}

/** The options the key rule reads. */
export type KeyOptions = Pick<RunOptions, 'mode' | 'baseURL' | 'model' | 'apiKeyEnv'> & Partial<Pick<RunOptions, 'modelSource'>>;

/** Whether a run of these options may call the endpoint (and so needs the key). */
export function mayCallEndpoint(o: Pick<RunOptions, 'mode' | 'baseURL' | 'model'> & Partial<Pick<RunOptions, 'modelSource'>>): boolean {
  // A source reached without a key (VS Code's Language Model API, a local model) has none read.
  if (o.modelSource && !capabilitiesOf({ modelSource: o.modelSource }).needsKey) return false;
  return o.mode === 'generate' || !!(o.baseURL && o.model);
}

/** The key from the environment variable `apiKeyEnv` names, when the run may call the endpoint; else undefined. */
export function apiKeyFromEnv(
  o: Pick<RunOptions, 'mode' | 'baseURL' | 'model' | 'apiKeyEnv'> & Partial<Pick<RunOptions, 'modelSource'>>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  return mayCallEndpoint(o) ? env[o.apiKeyEnv] || undefined : undefined;
}

/**
 * The key of a run, with lines for its first output: none when it may call no endpoint; else the client's when it
 * reads keys itself (VS Code: the stored key once its host is approved), else the environment's.
 */
export async function runKeyOf(o: KeyOptions, client: ((o: KeyOptions) => PromiseLike<RunKey>) | undefined, env: NodeJS.ProcessEnv): Promise<RunKey> {
  if (!mayCallEndpoint(o)) return { key: undefined, notes: [] };
  return client ? client(o) : { key: apiKeyFromEnv(o, env), notes: [] };
}

/** Where a run's key comes from: VS Code's secret storage, or an environment variable (named by the workspace or not). */
export type KeySource = { kind: 'stored' } | { kind: 'env'; name: string; namedByWorkspace?: boolean };

/** A host the user let a key go to: its origin and which key (`stored`, or `env:NAME`). */
export interface KeyApproval {
  origin: string;
  key: string;
}

export interface KeyHostCase {
  /** The user's own base URL: the setting at the user's level, or its default; never a workspace's value. */
  userBaseURL: string | undefined;
  /** The base URL the run sends its requests to (after launch.json and the workspace's settings); none: no endpoint. */
  runBaseURL: string | undefined;
  /** The key the run would send; undefined: none. */
  key: KeySource | undefined;
  approved: readonly KeyApproval[];
}

export type KeyHostDecision =
  | { ask: false; why: 'no key' | 'no endpoint' | 'your setting' | 'approved' }
  /** `origin`: the run's (the URL as written when it is none); `userOrigin`: none when the setting is no URL. */
  | { ask: true; origin: string; userOrigin: string | undefined };

/** `scheme://host:port` of an http(s) URL, the port always written (https://api.openai.com:443); undefined when not one. */
export function originOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
  return `${u.protocol}//${u.hostname}:${u.port || (u.protocol === 'https:' ? '443' : '80')}`;
}

/** The approval's name of a key: `stored`, or `env:NAME`. */
export function keyId(key: KeySource): string {
  return key.kind === 'stored' ? 'stored' : `env:${key.name}`;
}

/** Whether to ask before the run's key goes to its endpoint, and about which origin. */
export function keyHostDecision(c: KeyHostCase): KeyHostDecision {
  if (!c.runBaseURL) return { ask: false, why: 'no endpoint' };
  if (!c.key) return { ask: false, why: 'no key' };
  const parsed = originOf(c.runBaseURL);
  const userOrigin = originOf(c.userBaseURL);
  if (parsed && parsed === userOrigin) return { ask: false, why: 'your setting' };
  const origin = parsed ?? c.runBaseURL;
  const id = keyId(c.key);
  if (c.approved.some(a => a.origin === origin && a.key === id)) return { ask: false, why: 'approved' };
  return { ask: true, origin, userOrigin };
}

/** The base URL's value at each settings level (VS Code's inspect), and the folder's name. */
export interface BaseURLLevels {
  user?: string;
  workspace?: string;
  folder?: string;
  folderName?: string;
}

/** Who chose the run's base URL, as a sentence's subject: a settings level whose value it is, else the launch configuration. */
export function whereBaseURLSet(run: string, levels: BaseURLLevels, launch: { name?: string; folderName?: string } | undefined): string {
  // A single-folder window reports its settings at both levels: they are the workspace's.
  if (levels.workspace !== undefined && run === levels.workspace) return 'the workspace settings';
  if (levels.folder !== undefined && run === levels.folder) return `the settings of the folder "${levels.folderName ?? '?'}"`;
  if (levels.user !== undefined && run === levels.user) return 'your settings';
  if (launch?.name) return `the launch configuration "${launch.name}"${launch.folderName ? ` of ${launch.folderName}` : ''}`;
  return 'the run’s options';
}

export const SEND_KEY = 'Send Key';
export const RUN_WITHOUT_KEY = 'Run Without Key';
export const FORGET_KEY_HOSTS_TITLE = 'ART: Forget Approved Key Hosts';

function keyPhrase(key: KeySource): string {
  if (key.kind === 'stored') return 'your stored API key';
  return `the API key in your environment variable ${key.name}${key.namedByWorkspace ? ' (a name the workspace chose)' : ''}`;
}

export interface KeyHostQuestion {
  message: string;
  detail: string;
  origin: string;
  key: KeySource;
}

/** The modal's words: `where` sends which key to which origin, the user's own setting, and what each button does. */
export function keyHostQuestion(d: { origin: string; userOrigin: string | undefined }, key: KeySource, where: string): KeyHostQuestion {
  const subject = where.charAt(0).toUpperCase() + where.slice(1);
  const verb = /settings$/.test(where) ? 'send' : 'sends';
  const yours = d.userOrigin
    ? `Your setting "art.model.baseURL" is ${d.userOrigin}.`
    : 'Your setting "art.model.baseURL" is not a URL, so no host is your own.';
  return {
    message: `${subject} ${verb} ${keyPhrase(key)} to ${d.origin}. Send the key there?`,
    detail:
      `${yours} A trusted workspace may choose the endpoint of its runs, but your key goes to another host only when you say so.\n\n` +
      `${SEND_KEY}: send it; remembered for ${d.origin} (run "${FORGET_KEY_HOSTS_TITLE}" to withdraw it).\n` +
      `${RUN_WITHOUT_KEY}: the run goes on and the endpoint gets no key (asked again in a new window).\n` +
      'Cancel: nothing runs.',
    origin: d.origin,
    key,
  };
}

export type KeyHostAnswer = 'send' | 'withhold' | 'cancel';

/** What a run gets: the key or none, lines for its first output, or why it does not start. */
export interface RunKey {
  key: string | undefined;
  notes: string[];
  /** The user cancelled: the run does not start; why, as the end of a sentence ("you cancelled sending ..."). */
  cancelled?: string;
}

/** Where the approvals are kept: the user's (VS Code's globalState), never the workspace's. */
export interface KeyApprovalStore {
  approved(): readonly KeyApproval[];
  approve(a: KeyApproval): PromiseLike<void> | void;
}

export interface KeyRequest {
  userBaseURL: string | undefined;
  runBaseURL: string | undefined;
  /** The key the run would send and where it comes from; undefined: none. */
  key: { value: string; source: KeySource } | undefined;
  /** Who chose the run's base URL (whereBaseURLSet). */
  where: string;
}

/** Asks once per origin and key (runs that start together share the question) before a key goes to another host. */
export class KeyHostGate {
  /** "Run Without Key" answers, for as long as the gate lives (a window): `origin key`. */
  private readonly withheld = new Set<string>();
  private readonly pending = new Map<string, Promise<KeyHostAnswer>>();

  constructor(private readonly deps: { store: KeyApprovalStore; ask(q: KeyHostQuestion): PromiseLike<KeyHostAnswer> }) {}

  async keyFor(r: KeyRequest): Promise<RunKey> {
    const d = keyHostDecision({ userBaseURL: r.userBaseURL, runBaseURL: r.runBaseURL, key: r.key?.source, approved: this.deps.store.approved() });
    const key = r.key?.value;
    if (!d.ask) {
      if (d.why !== 'approved') return { key, notes: [] };
      return { key, notes: [this.sentNote(r, originOf(r.runBaseURL) ?? r.runBaseURL!)] };
    }
    const source = r.key!.source;
    const id = `${d.origin} ${keyId(source)}`;
    const set = `set by ${r.where}`;
    const yours = d.userOrigin ? `your setting ${d.userOrigin}` : 'your setting (not a URL)';
    const without = (why: string) => ({
      key: undefined,
      notes: [
        `key: not sent: the endpoint ${d.origin} (${set}) is not ${yours}, and you chose ${RUN_WITHOUT_KEY}${why}; the run goes on without a key.`,
      ],
    });
    if (this.withheld.has(id)) return without(' for it in this window');
    let answer = this.pending.get(id);
    if (!answer) {
      // The answer is recorded before any run hears it: the next run finds the approval (or the refusal).
      answer = (async () => {
        const a = await this.deps.ask(keyHostQuestion(d, source, r.where));
        if (a === 'send') await this.deps.store.approve({ origin: d.origin, key: keyId(source) });
        if (a === 'withhold') this.withheld.add(id);
        return a;
      })().finally(() => this.pending.delete(id));
      this.pending.set(id, answer);
    }
    const a = await answer;
    if (a === 'cancel') return { key: undefined, notes: [], cancelled: `you cancelled sending ${keyPhrase(source)} to ${d.origin} (${set})` };
    if (a === 'withhold') return without('');
    return { key, notes: [this.sentNote(r, d.origin)] };
  }

  /** Forgets the "Run Without Key" answers (the approvals are the store's). */
  forgetWithheld(): void {
    this.withheld.clear();
  }

  private sentNote(r: KeyRequest, origin: string): string {
    const user = originOf(r.userBaseURL);
    return `key: ${keyPhrase(r.key!.source)} goes to ${origin} (set by ${r.where}; your setting is ${user ?? 'not a URL'}): you approved that host.`;
  }
}
