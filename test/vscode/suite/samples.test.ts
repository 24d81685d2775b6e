// Self-consistency in VS Code: a launch configuration with `samples: 2` (replay mode, no endpoint) debugs two samples
// as two threads of one session, each stopping alone; the Samples scope shows their answers and the vote; each
// sample's program streams into a document of its own, and each ends with its own trace.
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import { artStudio, disposeAndStopDebugging, until, workspaceUri, writeWorkspaceFile } from './helpers';

const LIBRARY = `Description: (Greeting) Say hello.
Input: hi
Q1: [EOQ]
Ans: hello
----
Description: (Sum) Add the numbers with python code. Store your result as a variable named 'ans'.
Input: 2 and 3
Q1: [generate python code] Write the addition as python code, storing the answer as 'ans'
#1:
ans = 2 + 3
print(ans)
Q2: [code execute] Execute the python code in #1 and get the value of "ans"
#2: 5
Q3: [EOQ]
Ans: 5
`;

interface DapEvent {
  type: string;
  event?: string;
  body?: any;
}

describe('self-consistency samples in the debugger', function () {
  this.timeout(90_000);
  const file = 'samples.art';
  const subscriptions: vscode.Disposable[] = [];

  before(async () => {
    await writeWorkspaceFile(file, LIBRARY);
    await artStudio();
  });

  after(async () => {
    await disposeAndStopDebugging(subscriptions);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('two samples, two threads: each stops alone, the Samples scope shows the vote, each writes its trace', async () => {
    const events: DapEvent[] = [];
    subscriptions.push(
      vscode.debug.registerDebugAdapterTrackerFactory('art', {
        createDebugAdapterTracker: () => ({ onDidSendMessage: (m: DapEvent) => void (m.type === 'event' && events.push(m)) }),
      }),
    );
    const started = new Promise<vscode.DebugSession>(resolve => subscriptions.push(vscode.debug.onDidStartDebugSession(resolve)));
    const ok = await vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0], {
      type: 'art',
      request: 'launch',
      name: 'Samples test',
      program: workspaceUri(file).fsPath,
      task: 1,
      mode: 'replay',
      samples: 2,
    });
    assert.ok(ok);
    const session = await started;
    const stops = () => events.filter(e => e.event === 'stopped');
    await until(() => stops().length >= 2, 'both samples stop at their first tool call', 30_000);
    assert.deepEqual(
      stops()
        .map(s => s.body.threadId)
        .sort(),
      [1, 2],
    );
    assert.ok(stops().every(s => s.body.allThreadsStopped === false));
    const threads = await session.customRequest('threads');
    assert.deepEqual(
      threads.threads.map((t: { id: number; name: string }) => t.name),
      ['Sample 1 · Sum', 'Sample 2 · Sum'],
    );
    // Each sample's program in a document of its own, both of the same run (runs are numbered across sessions).
    const sampleDocuments = () =>
      vscode.workspace.textDocuments.flatMap(d => {
        const m = d.uri.scheme === 'art-run' ? /Samples test \(run (\d+), sample ([12])\)/.exec(d.uri.path) : null;
        return m ? [{ run: m[1], sample: m[2] }] : [];
      });
    await until(() => sampleDocuments().length === 2, 'one streamed document per sample');
    assert.equal(new Set(sampleDocuments().map(d => d.run)).size, 1, 'both samples are of one run');
    assert.deepEqual(
      sampleDocuments()
        .map(d => d.sample)
        .sort(),
      ['1', '2'],
    );

    // Sample 2 runs to its end; sample 1 stays stopped and sees its answer in the Samples scope.
    const ends: DapEvent[] = [];
    subscriptions.push(vscode.debug.onDidReceiveDebugSessionCustomEvent(e => e.event === 'art/end' && ends.push({ type: 'event', body: e.body })));
    let n = stops().length;
    await session.customRequest('continue', { threadId: 2 });
    for (;;) {
      await until(() => stops().length > n || events.some(e => e.event === 'thread' && e.body.reason === 'exited'), 'sample 2 goes on', 30_000);
      if (events.some(e => e.event === 'thread' && e.body.reason === 'exited' && e.body.threadId === 2)) break;
      n = stops().length;
      assert.equal(stops().at(-1)!.body.threadId, 2, 'only sample 2 moves');
      await session.customRequest('continue', { threadId: 2 });
    }
    const frames = await session.customRequest('stackTrace', { threadId: 1 });
    const scopes = await session.customRequest('scopes', { frameId: frames.stackFrames[0].id });
    const samples = scopes.scopes.find((s: { name: string }) => s.name === 'Samples');
    assert.ok(samples, 'a Samples scope');
    const vars = (await session.customRequest('variables', { variablesReference: samples.variablesReference })).variables;
    const byName = Object.fromEntries(vars.map((v: { name: string; value: string }) => [v.name, v.value]));
    assert.equal(byName['sample 2'], '5');
    assert.match(byName['sample 1'], /^\(paused\)/);
    assert.equal(byName.vote, '5 (1 of 1 finished, 2 samples; not final)');

    // Sample 1 too: the vote, then each sample's end with its own trace.
    const terminated = new Promise<void>(resolve => subscriptions.push(vscode.debug.onDidTerminateDebugSession(() => resolve())));
    n = stops().length;
    await session.customRequest('continue', { threadId: 1 });
    while (!ends.length) {
      await until(() => stops().length > n || ends.length > 0, 'sample 1 goes on', 30_000);
      if (ends.length) break;
      n = stops().length;
      await session.customRequest('continue', { threadId: 1 });
    }
    await terminated;
    await until(() => ends.length === 2, 'the end of both samples');
    assert.deepEqual(
      ends.map(e => [e.body.sample, e.body.answer]),
      [
        [{ index: 1, of: 2 }, '5'],
        [{ index: 2, of: 2 }, '5'],
      ],
    );
    assert.match(ends[0].body.tracePath, /\.sample-1\.jsonl$/);
    const trace = new TextDecoder()
      .decode(await vscode.workspace.fs.readFile(vscode.Uri.file(ends[1].body.tracePath)))
      .trim()
      .split('\n');
    const vote = JSON.parse(trace.at(-1)!);
    assert.equal(vote.t, 'vote');
    assert.equal(vote.answer, '5');
    assert.equal(vote.agree, 2);
  });
});
