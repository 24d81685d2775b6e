// core/launch/stepping.ts, the stepping session the debug adapter and `art mcp` both drive: a command awaited to the
// next pause or the end; a cancelled command stops the run; stop at once while a command drives it, the run disposed
// of once; the idle timer; a departed replay kept and brought back to the pause it departed from; the cap of
// SteppingSessions holding while starts are under way. On examples/library.art's Elementary Math, replayed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { prepareRun } from '../../../core/launch/launch';
import type { RunConfig } from '../../../core/launch/session';
import { SteppingSession, SteppingSessions } from '../../../core/launch/stepping';
import { until } from '../../support/until';

const config = (): RunConfig => ({
  program: resolve(__dirname, '../../../examples/library.art'),
  task: 'Elementary Math',
  mode: 'replay',
  trusted: true,
  pauseAfterTool: true,
  pauseOnToolError: true,
});

async function session(opts?: ConstructorParameters<typeof SteppingSession>[2]): Promise<SteppingSession> {
  const c = config();
  return new SteppingSession(await prepareRun(c), c, opts);
}

describe('SteppingSession', () => {
  test('start and continue each answer with the next pause, then the end; the run is disposed of once', async () => {
    const s = await session();
    let disposed = 0;
    const dispose = s.run.dispose.bind(s.run);
    s.run.dispose = () => (disposed++, dispose());
    const first = await s.start();
    assert.ok('paused' in first && first.paused.call?.tool === 'generate python code');
    assert.equal(s.busy, false);
    const second = await s.drive(() => s.run.runner.continue());
    assert.ok('paused' in second && second.paused.call?.output === '210');
    const end = await s.drive(() => s.run.runner.continue());
    assert.ok('ended' in end && end.ended.answer === '210');
    await s.stop();
    await s.dispose();
    assert.equal(disposed, 1);
  });

  test('a cancelled command stops the run; stop ends a run a command is driving', async () => {
    const s = await session();
    await s.start();
    const controller = new AbortController();
    controller.abort();
    const cancelled = await s.drive(() => s.run.runner.continue(), controller.signal);
    assert.ok('ended' in cancelled && cancelled.ended.reason === 'stopped');

    const t = await session();
    await t.start();
    const driving = t.drive(() => t.run.runner.continue());
    assert.equal(t.busy, true);
    const r = await t.stop();
    assert.equal(r.reason, 'stopped');
    const answered = await driving;
    assert.ok('ended' in answered || 'paused' in answered);
  });

  test('a replay departed by an override is kept, and brought back to the pause it departed from', async () => {
    const s = await session();
    await s.start();
    await s.drive(() => s.run.runner.continue());
    s.run.runner.setToolOutput('999');
    const end = await s.drive(() => s.run.runner.continue());
    assert.ok('ended' in end && end.ended.reason === 'departed');
    assert.equal(s.departed?.pauses, 2);
    const back = await s.backBeforeDeparture();
    assert.ok('paused' in back && back.paused.call?.tool === 'code execute' && back.paused.call.output === '210');
    assert.equal(s.departed, undefined);
    await s.stop();
  });

  test('a paused session nobody drives calls onIdle', async () => {
    let idle = false;
    const s = await session({ idleMs: 30, onIdle: () => (idle = true) });
    await s.start();
    await until(() => idle, { what: 'the idle timer' });
    await s.stop();
  });
});

describe('SteppingSessions', () => {
  test('the cap holds while starts are under way', async () => {
    const sessions = new SteppingSessions<{ stop(): Promise<void> }>(3);
    let release!: () => void;
    const gate = new Promise<void>(r => (release = r));
    const adds = Array.from({ length: 8 }, () =>
      sessions.add(
        async () => (await gate, { stop: async () => {} }),
        () => new Error('full'),
      ),
    );
    release();
    const settled = await Promise.allSettled(adds);
    assert.equal(settled.filter(x => x.status === 'fulfilled').length, 3);
    assert.equal(sessions.size, 3);
    await sessions.stopAll();
    assert.equal(sessions.size, 0);
  });
});
