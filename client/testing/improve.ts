// "ART: Improve Library…" (command palette, the library's CodeLens): `art improve` in the editor (core/improve, loaded
// with the runner bundle). Asks for the three splits, or one dataset split by a seed; runs under a cancellable
// progress notification (cancelling keeps what ran: the same command resumes it); then opens the proposed library in
// a diff editor against the current one, the test comparison in the comparison view beside it, and asks: Accept
// writes the library as proposed and measured (the header comment left out), Discard leaves it as it is.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { EvaluationModule } from '../runnerServices';
import type { ImproveEnd } from '../../core/improve/improve';
import type { ArtSettings } from '../settings';
import type { KeyOptions, RunKey } from '../../core/launch/apiKey';
import { KeyNotSent, showRunFailure, type KeyRunContext } from '../runner/keyHosts';
import { libraryToRun, pickDataset, pickTask, saveFirst, settingLabel } from './evaluation';

export const IMPROVE_COMMAND = 'art.improveLibrary';

export interface ImproveDeps {
  load(): EvaluationModule;
  runKey: (o: KeyOptions, ctx: KeyRunContext) => Promise<RunKey>;
  settings: (scope?: vscode.ConfigurationScope) => ArtSettings;
  log: vscode.LogOutputChannel;
  /** Opens the comparison of two results files in the comparison view. */
  compare(a: string, b: string): Thenable<unknown>;
}

/** What a test may give instead of the questions. */
export interface ImproveGiven {
  splits?: { train: vscode.Uri; dev: vscode.Uri; test: vscode.Uri } | { data: vscode.Uri; seed: number };
  task?: string | number;
  budget?: number;
  seed?: number;
  /** The answer to Accept / Discard. */
  choice?: 'Accept' | 'Discard';
  token?: vscode.CancellationToken;
}

export class LibraryImprovements {
  private running = false;
  /** The last proposal: its end, and the person's choice once made (Accept writes the library before it resolves). */
  last: { end: ImproveEnd; choice: Promise<'Accept' | 'Discard' | undefined> } | undefined;

  constructor(private readonly deps: ImproveDeps) {}

  async run(library?: vscode.Uri, given: ImproveGiven = {}): Promise<ImproveEnd | undefined> {
    const ready = await libraryToRun('an improvement of a library', this.running, library, this.deps.settings);
    if (!ready) return undefined;
    library = ready.library;
    const { s, options } = ready;
    const folder = vscode.workspace.getWorkspaceFolder(library);
    const root = folder?.uri.fsPath ?? dirname(library.fsPath);
    const m = this.deps.load();
    const out = m.defaultImprovedPath(library.fsPath);
    const splits = given.splits ?? (await askSplits(join(root, s.runsFolder)));
    if (!splits) return undefined;
    if (!(await saveFirst(library))) return undefined;
    try {
      let paths: { train: string; dev: string; test: string };
      if ('data' in splits) paths = m.writeSplits(splits.data.fsPath, splits.seed, join(m.defaultWorkFolder(out), 'splits')).paths;
      else paths = { train: splits.train.fsPath, dev: splits.dev.fsPath, test: splits.test.fsPath };
      let task = given.task;
      if (task === undefined) {
        const named = m.datasetNamesTasks(paths.train);
        if (named.withoutTask !== undefined) {
          task = await pickTask(m.libraryTasks(readFileSync(library.fsPath, 'utf8')), library, vscode.Uri.file(paths.train), named.withoutTask);
          if (task === undefined) return undefined;
        }
      }
      if (task !== undefined) options.task = task;
      options.cwd = root;
      this.running = true;
      const end = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `ART: improving ${basename(library.fsPath)}`, cancellable: true },
        async (progress, cancel) => {
          const controller = new AbortController();
          const stop = () => controller.abort(new Error('cancelled'));
          const subs = [cancel.onCancellationRequested(stop), ...(given.token ? [given.token.onCancellationRequested(stop)] : [])];
          let label = '';
          let done = 0;
          let total = 0;
          try {
            return await m.improve({
              library: library!.fsPath,
              ...paths,
              out,
              options,
              optionLabel: settingLabel,
              apiKey: async o => {
                const key = await this.deps.runKey(o, { program: library!.fsPath });
                if (key.cancelled) throw new KeyNotSent(key.cancelled);
                return key.key;
              },
              trusted: vscode.workspace.isTrusted,
              concurrency: s.evaluationConcurrency,
              budget: given.budget ?? 1000,
              seed: given.seed ?? 0,
              signal: controller.signal,
              log: line => this.deps.log.info(`improve: ${line}`),
              onPlan: (_, text) => this.deps.log.info(`improve: ${text}`),
              onEvaluation: e => {
                [label, done, total] = [e.label, e.done, e.total];
                progress.report({ message: `${label}: ${done}/${total}` });
              },
              onResult: () => progress.report({ message: `${label}: ${++done}/${total}` }),
            });
          } finally {
            for (const d of subs) d.dispose();
          }
        },
      );
      await this.propose(library, end, given.choice);
      return end;
    } catch (e) {
      if (e instanceof m.ImproveStopped) {
        void vscode.window.showInformationMessage('ART Studio: improving stopped: run "ART: Improve Library…" again to resume (what ran is kept).');
        return undefined;
      }
      return showRunFailure(e, m.isUserError, 'nothing ran');
    } finally {
      this.running = false;
    }
  }

  /** The diff of the proposal against the library, the comparison beside it, and Accept / Discard (the language model tool's too). */
  async propose(library: vscode.Uri, end: ImproveEnd, choice?: 'Accept' | 'Discard'): Promise<void> {
    const proposed = vscode.Uri.file(end.out);
    await vscode.commands.executeCommand('vscode.diff', library, proposed, `${basename(library.fsPath)} ↔ proposed (art improve)`);
    await this.deps.compare(end.results.baseline, end.results.improved);
    const verdict = end.significant
      ? `a significant gain on test (${end.baseline.correct}/${end.baseline.n} → ${end.improved.correct}/${end.improved.n})`
      : `no significant gain on test (${end.baseline.correct}/${end.baseline.n} → ${end.improved.correct}/${end.improved.n})`;
    const message = `ART Studio: ${end.added.length} demonstration(s) proposed for ${basename(library.fsPath)}: ${verdict}.`;
    // The question is not awaited: the command (and the language model tool) ends with the proposal shown.
    const decided = (async () => {
      const c = choice ?? ((await vscode.window.showInformationMessage(message, 'Accept', 'Discard')) as 'Accept' | 'Discard' | undefined);
      if (c === 'Accept') await this.accept(library, end);
      this.deps.log.info(`improve: ${basename(end.out)}: ${c === 'Accept' ? 'accepted' : 'discarded'}`);
      return c;
    })();
    this.last = { end, choice: decided };
    if (choice) await decided;
  }

  /** Writes the library as proposed and measured (the header comment left out). */
  private async accept(library: vscode.Uri, end: ImproveEnd): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(library);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(library, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), this.deps.load().withoutHeader(end.text));
    if (await vscode.workspace.applyEdit(edit)) await doc.save();
  }
}

/** The three splits, or one dataset and the seed that splits it. */
async function askSplits(runsFolder: string): Promise<ImproveGiven['splits']> {
  const how = await vscode.window.showQuickPick(
    [
      { label: 'Three splits', description: 'a training, a dev and a test dataset', three: true },
      { label: 'One dataset, split by a seed', description: 'half to train, a quarter to dev, a quarter to test', three: false },
    ],
    { title: 'Improve Library: which data?', ignoreFocusOut: true },
  );
  if (!how) return undefined;
  if (how.three) {
    const train = await pickDataset(runsFolder, 'Improve Library: the training dataset (its right runs become demonstrations)');
    const dev = train && (await pickDataset(runsFolder, 'Improve Library: the dev dataset (candidate sets are scored on it)'));
    const test = dev && (await pickDataset(runsFolder, 'Improve Library: the test dataset (the gain is proven on it)'));
    return train && dev && test ? { train, dev, test } : undefined;
  }
  const data = await pickDataset(runsFolder, 'Improve Library: the dataset to split in three');
  if (!data) return undefined;
  const seed = await vscode.window.showInputBox({
    title: 'Improve Library: the seed of the split',
    value: '0',
    validateInput: v => (/^\d+$/.test(v) ? null : 'a whole number'),
  });
  return seed === undefined ? undefined : { data, seed: Number(seed) };
}

/** The CodeLens on a task library's first line: "Improve Library…" (a library is improved as a whole). */
export class ImproveCodeLens implements vscode.CodeLensProvider {
  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (doc.languageId !== 'art' || !/^Input\s*[:：]/m.test(doc.getText())) return [];
    return [
      new vscode.CodeLens(new vscode.Range(0, 0, 0, 0), {
        title: '$(sparkle) Improve Library…',
        tooltip: 'Add demonstrations bootstrapped from a dataset, chosen on a dev split, the gain proven on a test split',
        command: IMPROVE_COMMAND,
        arguments: [doc.uri],
      }),
    ];
  }
}
