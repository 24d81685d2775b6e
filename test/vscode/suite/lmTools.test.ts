// The language model tools of the editor's agent mode (client/lm/tools.ts over core/agentTools/), invoked as an agent
// invokes them (vscode.lm.invokeTool) during a debug session: the agent reads the pause the person sees, continues,
// steps back, overrides the paused tool's output and continues to the end, and each step shows in the session itself
// (its `art/state`); art_debug_start starts a session the person sees. The tools that run code ask first
// (prepareInvocation): outside a chat the workbench asks in a modal dialog, which an extension test host answers
// itself (it logs "Dialog requested during smoke test" and confirms).
import * as assert from 'node:assert/strict';
import { after, before, describe, it } from 'mocha';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import * as vscode from 'vscode';
import { artStudio, disposeAndStopDebugging, open, until, workspaceUri, writeWorkspaceFile } from './helpers';

const LIBRARY = `Description: (Elementary Math) Solve the following middle-school arithmetic problems, writing out intermediate arithmetic calculations as python code. Store your result as a variable named 'ans'.
Input: Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. She sells the remainder for $2 per egg. How much in dollars does she make every day?
Q1: [generate python code] Write down the arithmetic or algebra equations as python code, storing the answer as 'ans'
#1:
sold_eggs = 16 - 3 - 4
ans = sold_eggs * 2
print(ans)
Q2: [code execute] Execute the python code in #1 and get the value of "ans"
#2: 18
Q3: [EOQ]
Ans: 18
----
Description: %s
Input: %s
Q1:
`;

/** The tools package.json declares (generated from core/agentTools/catalog.ts). */
const TOOLS = (): string[] =>
  (vscode.extensions.getExtension('art-studio.art-studio')?.packageJSON.contributes.languageModelTools ?? []).map((t: { name: string }) => t.name);

/** Invokes a tool as an agent would (no chat: no invocation token) and returns its text. */
async function invoke(name: string, input: object = {}): Promise<string> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return result.content.map(p => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

describe('language model tools (vscode.lm) on the editor and a debug session', function () {
  this.timeout(90_000);
  const file = 'lm-ducks.art';
  const subscriptions: vscode.Disposable[] = [];
  const stops: { threadId: number; description: string }[] = [];

  before(async () => {
    await writeWorkspaceFile(file, LIBRARY);
    subscriptions.push(
      vscode.debug.registerDebugAdapterTrackerFactory('art', {
        createDebugAdapterTracker: () => ({
          onDidSendMessage: (m: { type: string; event?: string; body?: any }) => {
            if (m.type === 'event' && m.event === 'stopped') stops.push(m.body);
          },
        }),
      }),
    );
    await artStudio();
  });

  after(async () => {
    await disposeAndStopDebugging(subscriptions);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('registers every tool package.json declares', async () => {
    assert.equal(typeof vscode.lm.registerTool, 'function', 'this VS Code has vscode.lm.registerTool');
    assert.equal(TOOLS().length, 14, 'every agent tool is declared');
    const names = await until(() => {
      const got = vscode.lm.tools.filter(t => t.name.startsWith('art_')).map(t => t.name);
      return got.length === TOOLS().length && got;
    }, 'the art_ tools in vscode.lm.tools');
    assert.deepEqual([...names].sort(), [...TOOLS()].sort());
    const check = vscode.lm.tools.find(t => t.name === 'art_check')!;
    assert.ok(check.tags.includes('art'));
    assert.match(check.description, /problems/);
  });

  it('art_check reads the diagnostics of the active document and of a named one', async () => {
    await open('broken.art');
    const broken = await invoke('art_check');
    assert.match(broken, /^broken\.art:\d+:\d+: error: .* \[[\w-]+\]$/m);
    assert.match(broken, /\nchecked 1 file: \d+ errors?/);
    assert.equal(await invoke('art_check', { files: ['clean.art'] }), 'checked 1 file: no problems');
    await assert.rejects(invoke('art_check', { files: ['notes.md'] }), /not an ART file/);
  });

  it('acts only on files of the workspace: a path outside it, or a link in it that leads out, is refused', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'art-lm-outside-'));
    const link = workspaceUri('lm-outside-link').fsPath;
    try {
      writeFileSync(join(outside, 'secret.art'), 'Input: x\nQ1: [EOQ]\nAns: x\n');
      symlinkSync(outside, link);
      // `link/..` is where the link leads, not the workspace: a path naming `..` is refused.
      const dotdot = `${link}/../${basename(outside)}/secret.art`;
      for (const file of [join(outside, 'secret.art'), 'lm-outside-link/secret.art', vscode.Uri.file(join(outside, 'secret.art')).toString(), dotdot])
        await assert.rejects(
          invoke('art_check', { files: [file] }),
          /outside the workspace folders .*: the ART tools act only on files of the open workspace/,
          file,
        );
      await assert.rejects(invoke('art_evaluate', { data: join(outside, 'data.jsonl'), library: 'clean.art' }), /outside the workspace folders/);
    } finally {
      rmSync(link, { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("a workspace's default corpus that links out is refused as a path given would be", async () => {
    const outside = mkdtempSync(join(tmpdir(), 'art-lm-corpus-'));
    const link = workspaceUri('corpus').fsPath;
    try {
      writeFileSync(join(outside, 'private.md'), '# Private\n\nNot for the agent.\n');
      symlinkSync(outside, link);
      await assert.rejects(invoke('art_run', { file: 'clean.art', mode: 'replay' }), /the workspace's default.*outside the workspace folders/);
    } finally {
      rmSync(link, { force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('steps a debug session: reads the pause, continues, steps back, overrides the output, continues to the end', async () => {
    await open(file);
    const started = new Promise<vscode.DebugSession>(resolve => subscriptions.push(vscode.debug.onDidStartDebugSession(resolve)));
    const ended = new Promise<void>(resolve => subscriptions.push(vscode.debug.onDidTerminateDebugSession(() => resolve())));
    await assert.rejects(invoke('art_debug_state'), /no ART debug session/);
    assert.ok(
      await vscode.debug.startDebugging(vscode.workspace.workspaceFolders![0], {
        type: 'art',
        request: 'launch',
        name: 'lm tools',
        program: workspaceUri(file).fsPath,
        task: 0,
        mode: 'replay',
      }),
    );
    const session = await started;
    await until(() => stops[0], 'the first stop');
    const state = async () => session.customRequest('art/state', {});

    // The pause the person sees, as the agent reads it.
    const first = await invoke('art_debug_state');
    assert.match(first, /^session lm tools paused: .*generate python code.* \(step 1\)\ntool: generate python code\n/);
    assert.match(first, /\noutput: \n?sold_eggs = 16 - 3 - 4/);

    // Continue: the code really runs; the answer is the next pause.
    const second = await invoke('art_debug_continue');
    assert.match(second, /paused: .*\[code execute\].* \(step 2\)\ntool: code execute\ninput: Execute the python code/);
    assert.match(second, /\noutput: 18\n/);
    assert.equal(stops.length, 2, 'the session stopped again, as the person sees it');

    // Step back to the first pause, then forward again.
    const back = await invoke('art_debug_step_back');
    assert.match(back, /tool: generate python code/);
    assert.equal((await state()).call.tool, 'generate python code');
    assert.match(await invoke('art_debug_continue'), /tool: code execute/);

    // Override the output: the session's paused call has it (the Variables view shows it).
    const set = await invoke('art_debug_set_output', { output: '42' });
    assert.match(set, /\noverride: 42\n/);
    assert.equal((await state()).call.override, '42');

    // Continue to the end: the override departs from the recording, and with no model the replay stops there.
    const end = await invoke('art_debug_continue');
    assert.match(end, /^session lm tools ended: departed\nwhy: .*departed from its recording/);
    assert.match(end, /\n#2: 42\n$/);
    await ended;
    await assert.rejects(invoke('art_debug_continue'), /no ART debug session/);
  });

  it('art_debug_start starts a debug session the person sees; art_debug_stop ends it', async () => {
    const ended = new Promise<void>(resolve => subscriptions.push(vscode.debug.onDidTerminateDebugSession(() => resolve())));
    const first = await invoke('art_debug_start', { file, task: 0, mode: 'replay' });
    assert.match(first, /^(note: .*\n)*session lm-ducks\.art \(agent\) paused: .*generate python code.* \(step 1\)\ntool: generate python code\n/m);
    assert.equal(vscode.debug.activeDebugSession?.name, 'lm-ducks.art (agent)', 'the person sees the session');
    assert.match(await invoke('art_debug_state'), /^session lm-ducks\.art \(agent\) paused: /);
    assert.match(await invoke('art_debug_stop'), /^session lm-ducks\.art \(agent\) ended: stopped\n/);
    await ended;
  });

  it("art_run runs a program to its end; a caller's run options are capped as art mcp's are", async () => {
    const out = await invoke('art_run', { file, task: 0, mode: 'replay', pythonMemoryMb: 4096, contextSize: 30000 });
    assert.match(
      out,
      /^note: "pythonMemoryMb" 4096 is over what a caller may ask for: 512 is used \(the editor's cap; art mcp sets it with --max-python-memory-mb\)$/m,
    );
    assert.match(out, /^note: "contextSize" 30000 is over what a caller may ask for: 8192 is used /m);
    assert.match(out, /\nAnswer: 18$/);
  });

  it('art_test replays the programs of a library and compares each step', async () => {
    const out = await invoke('art_test', { files: [file] });
    assert.match(out, /^PASS lm-ducks\.art:\d+ program 0 \(Elementary Math\)\n1 passed, 0 failed$/);
  });
});
