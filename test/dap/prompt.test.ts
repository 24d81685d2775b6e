// "ART: Show Prompt" during a debug session: the adapter's `art/prompt` request over stdio answers with the run's
// prompt (what its requests start with), the demonstrations and why each was chosen, and what the model wrote so far.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { PromptRequest } from '../../client/debugAdapter/protocol';
import { formatPromptReport, type PromptReport } from '../../core/prompt/promptReport';
import { DUCKS, fixturePath } from '../support/runs';
import { ArtDebugClient } from './adapter';

const PROGRAM = fixturePath('programs/arithmetic.art');

describe('debug adapter over stdio: the prompt of the run', () => {
  after(() => ArtDebugClient.closeAll());

  test('art/prompt at a stop: the exact prompt, the demonstrations with why, the program so far', async () => {
    const c = await ArtDebugClient.start();
    const stopped = c.waitForEvent('stopped');
    await c.launchWith({ program: PROGRAM, task: DUCKS, mode: 'replay', select: 'similar' });
    const stop = (await stopped) as DebugProtocol.StoppedEvent;
    assert.equal(stop.body.reason, 'tool call');

    const r = await c.customRequest(PromptRequest.command, { threadId: 1 } satisfies PromptRequest.Arguments);
    const report = r.body as PromptRequest.Response;
    assert.equal(report.kind, 'art');
    assert.equal(report.title, 'Elementary Math');
    assert.equal(report.program, PROGRAM);
    assert.ok(report.prompt.endsWith(report.header));
    assert.match(report.header, /^Description: \(Elementary Math\)[\s\S]*\nQ1:$/);
    // `similar` over the folder's libraries: each demonstration names its file and the terms it shares.
    const demos = report.demonstrations!;
    assert.ok(demos.length >= 2, JSON.stringify(demos));
    for (const d of demos) {
      assert.equal(d.why?.strategy, 'similar');
      assert.ok(d.file?.endsWith('.art'));
      // The demonstration's text is in the prompt, from the line the report names.
      const line = readFileSync(d.file!, 'utf8').split('\n')[d.line - 1];
      assert.ok(report.prompt.includes(line), `${d.title}: ${line}`);
    }
    assert.ok(
      demos.some(d => d.file !== PROGRAM),
      'a demonstration of another file of the folder',
    );
    // Paused at the first tool call: the program so far (its query) follows the prompt.
    assert.equal(
      report.generated,
      " [generate python code] Write down the arithmetic or algebra equations as python code, storing the answer as 'ans'",
    );
    const text = formatPromptReport(report as PromptReport);
    assert.match(text, /why: similar: rank \d+, BM25 score/);

    await c.close();
  });

  test('art/prompt with no run says so', async () => {
    const c = await ArtDebugClient.start();
    await c.initializeRequest({ adapterID: 'art', clientID: 'test', linesStartAt1: true, columnsStartAt1: true, pathFormat: 'path' });
    await assert.rejects(c.customRequest(PromptRequest.command, {}), /no run is going on in this session/);
    await c.close();
  });
});
