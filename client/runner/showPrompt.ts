// "ART: Show Prompt": the exact prompt of a run, with the demonstrations in it and why each was chosen, in a
// read-only document (the streamed programs' `art-run` scheme, streamEditor.ts). During an ART debug session: the
// current run's (the focused sample's), asked of the adapter (`art/prompt`); from a Runs view item or a trace file:
// the prompt the trace recorded; otherwise: the prompt a run of the program under the cursor would send, built by
// core (core/launch/launch.ts promptOfRun) without running it. The report's text is core's (promptReport.ts).
import * as vscode from 'vscode';
import type { RunConfig } from '../../core/launch/session';
import { promptAsksModel, type KeyOptions, type RunKey } from '../../core/launch/apiKey';
import { parseRunOptions } from '../../core/launch/options';
import type { KeyRunContext } from './keyHosts';
import { formatPromptReport, type PromptReport } from '../../core/prompt/promptReport';
import type { ArtConfigurationProvider } from './configuration';
import { isRunnable } from './programs';
import { DEBUG_TYPE, PromptRequest } from '../debugAdapter/protocol';
import type { RunsNode, RunsView } from '../views/runsView';
import type { ProgramStreams } from '../views/streamEditor';

export const SHOW_PROMPT_COMMAND = 'art.showPrompt';

export interface ShowPromptDeps {
  streams: ProgramStreams;
  provider: ArtConfigurationProvider;
  runs: RunsView;
  /** The runner bundle's promptOfRun, loaded on first use. */
  promptOf: () => (config: RunConfig) => Promise<PromptReport>;
  /** The key of a run (client/runner/keyHosts.ts): llm and best-cluster selection ask the model. */
  runKey: (o: KeyOptions, ctx: KeyRunContext) => Promise<RunKey>;
  log: vscode.LogOutputChannel;
}

/** Shows the prompt of `target` (a program or trace file, a Runs view item), else of the session or the active editor. */
export async function showPrompt(deps: ShowPromptDeps, target?: vscode.Uri | RunsNode): Promise<vscode.TextEditor | undefined> {
  try {
    const report = await reportOf(deps, target);
    if (!report) return undefined;
    const name = report.title ?? (report.program ? report.program.replace(/^.*[\\/]/, '') : 'run');
    return await deps.streams.showText(`Prompt of ${name}${report.sample ? ` (sample ${report.sample.index})` : ''}`, formatPromptReport(report));
  } catch (e) {
    void vscode.window.showErrorMessage(`ART Studio: Show Prompt: ${(e as Error).message}`);
    return undefined;
  }
}

async function reportOf(deps: ShowPromptDeps, target: vscode.Uri | RunsNode | undefined): Promise<PromptReport | undefined> {
  if (target && !(target instanceof vscode.Uri)) {
    const trace = deps.runs.traceOf(target);
    if (!trace) throw new Error('that item of the Runs view has no trace');
    return deps.promptOf()({ program: trace, trusted: true });
  }
  if (target?.path.toLowerCase().endsWith('.jsonl')) return deps.promptOf()({ program: target.fsPath, trusted: true });
  if (!target) {
    const fromSession = await sessionPrompt();
    if (fromSession) return fromSession;
  }
  const doc = target ? await vscode.workspace.openTextDocument(target) : vscode.window.activeTextEditor?.document;
  if (doc?.uri.path.toLowerCase().endsWith('.jsonl')) return deps.promptOf()({ program: doc.uri.fsPath, text: doc.getText(), trusted: true });
  if (!doc || !isRunnable(doc)) {
    void vscode.window.showInformationMessage(
      'ART Studio: Show Prompt shows the prompt of the program at the cursor (open an .art or .agent file), of the debugged run, or of a trace.',
    );
    return undefined;
  }
  const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
  const name = `Prompt of ${vscode.workspace.asRelativePath(doc.uri)}`;
  // The configuration a run of the program at the cursor gets (settings, task), with no trace: nothing runs.
  const config = await deps.provider.complete(folder, { type: DEBUG_TYPE, request: 'launch', name, program: doc.uri.fsPath }, { trace: false });
  if (!config) return undefined;
  const options = config as unknown as RunConfig;
  // The key only when choosing the demonstrations asks the model, read as a run reads it (asked about its host).
  const parsed = parseRunOptions(options);
  const key = promptAsksModel(parsed) ? await deps.runKey(parsed, { program: doc.uri.fsPath }) : undefined;
  for (const note of key?.notes ?? []) deps.log.info(`Show Prompt: ${note}`);
  if (key?.cancelled) {
    void vscode.window.showInformationMessage(`ART Studio: Show Prompt did not run: ${key.cancelled}.`);
    return undefined;
  }
  return deps.promptOf()({ ...options, text: doc.getText(), apiKey: key?.key, trusted: vscode.workspace.isTrusted });
}

/** The active ART session's prompt (of the focused thread's sample), or undefined when it has no run. */
async function sessionPrompt(): Promise<PromptReport | undefined> {
  const session = vscode.debug.activeDebugSession;
  if (session?.type !== DEBUG_TYPE) return undefined;
  const item = vscode.debug.activeStackItem;
  const threadId = item && item.session.id === session.id ? item.threadId : undefined;
  try {
    return (await session.customRequest(PromptRequest.command, { threadId } satisfies PromptRequest.Arguments)) as PromptRequest.Response;
  } catch {
    // The session's run has ended: the prompt comes from the editor instead.
    return undefined;
  }
}
