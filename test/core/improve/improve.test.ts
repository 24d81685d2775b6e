// `art improve` in core (core/improve/), against a scripted model that learns only from the demonstrations in its
// prompt (test/support/kindsModel.ts): a library that shows one kind of problem gains demonstrations of the other
// kinds from its training runs and a significant gain on test; the control, a model no demonstration helps, gains
// nothing. Also the rules: the splits do not leak, the budget caps the requests, the seed reproduces, a stop resumes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScriptedServer } from '../../support/scriptedServer';
import { KINDS_LIBRARY, jsonl, kindsData, useKindsModel } from '../../support/kindsModel';
import { improve, ImproveStopped, type ImproveConfig } from '../../../core/improve/improve';
import { checkSplits, splitExamples } from '../../../core/improve/splits';
import { planBudget, PlanError } from '../../../core/improve/plan';
import { libraryText, withoutHeader, ORIGIN_PREFIX } from '../../../core/improve/candidates';
import { parseArt } from '../../../core/art/parse';
import { checkArt } from '../../../core/art/check';
import type { EvalExample } from '../../../core/evaluation/eval';

let server: ScriptedServer;
before(async () => {
  server = await new ScriptedServer({ tokenDelayMs: 0 }).start();
});
after(() => server.close());

/** A fresh folder with the library and the three splits (train 3 a kind, dev 2, test 4). */
function workspace(): { dir: string; library: string; train: string; dev: string; test: string } {
  const dir = mkdtempSync(join(tmpdir(), 'art-improve-'));
  const files = { library: join(dir, 'kinds.art'), train: join(dir, 'train.jsonl'), dev: join(dir, 'dev.jsonl'), test: join(dir, 'test.jsonl') };
  writeFileSync(files.library, KINDS_LIBRARY);
  writeFileSync(files.train, jsonl(kindsData(3, 100)));
  writeFileSync(files.dev, jsonl(kindsData(2, 200)));
  writeFileSync(files.test, jsonl(kindsData(4, 300)));
  return { dir, ...files };
}

function config(w: ReturnType<typeof workspace>, over: Partial<ImproveConfig> = {}): ImproveConfig {
  return {
    library: w.library,
    train: w.train,
    dev: w.dev,
    test: w.test,
    options: { baseURL: server.baseURL, model: 'scripted', cwd: w.dir, task: 'Arithmetic' },
    trusted: true,
    concurrency: 2,
    budget: 400,
    seed: 1,
    log: () => {},
    ...over,
  };
}

describe('art improve in core', () => {
  test('a library showing one kind gains demonstrations of the others, and the gain on test is significant', async () => {
    useKindsModel(server);
    const w = workspace();
    const end = await improve(config(w));
    assert.ok(end.added.length > 0, 'demonstrations were added');
    const trainIds = new Set(kindsData(3, 100).map(e => e.id));
    for (const a of end.added) assert.ok(trainIds.has(a.id), `${a.id} is a training example`);
    const kinds = new Set(end.added.map(a => a.id.split('-')[0]));
    assert.ok(kinds.has('times') && kinds.has('minus'), `added kinds: ${[...kinds]}`);
    assert.equal(end.baseline.correct, 4, 'the original gets only the plus kind right');
    assert.ok(end.improved.correct > end.baseline.correct + 4, `${end.baseline.correct} → ${end.improved.correct}`);
    assert.ok(end.pValue < 0.05 && end.significant);
    assert.ok(end.requests <= 400 && end.requestsSent === end.requests);
    // The file: new, next to the library, each added demonstration after a comment naming its training example.
    assert.equal(end.out, join(w.dir, 'kinds.improved.art'));
    assert.equal(readFileSync(w.library, 'utf8'), KINDS_LIBRARY, 'the original is untouched');
    const text = readFileSync(end.out, 'utf8');
    assert.match(text.split('\n')[1], /significant gain/);
    for (const a of end.added) assert.ok(text.includes(`${ORIGIN_PREFIX} "${a.id}" (train.jsonl:`), a.id);
    const measured = withoutHeader(text);
    assert.deepEqual(
      checkArt(parseArt(measured)).filter(d => d.severity === 'error'),
      [],
    );
    assert.ok(existsSync(end.results.baseline) && existsSync(end.results.improved));
    // The evaluations are kept in ART Studio's own folder, out of git.
    assert.equal(end.work, join(w.dir, '.art', 'improve', 'kinds.improved'));
    assert.match(readFileSync(join(w.dir, '.art', 'improve', '.gitignore'), 'utf8'), /^\*$/m);
  });

  test('the control: when no demonstration can help, no significant gain and nothing written as better', async () => {
    useKindsModel(server, false);
    const w = workspace();
    const end = await improve(config(w));
    assert.equal(end.significant, false);
    assert.ok(end.improved.correct <= end.baseline.correct);
    const text = readFileSync(end.out, 'utf8');
    assert.match(text, /no significant gain/);
    assert.doesNotMatch(text, /: a significant gain/);
  });

  test('the same seed gives the same library; the splits are used as their rules say', async () => {
    useKindsModel(server);
    const [w1, w2] = [workspace(), workspace()];
    const before = server.requests.length;
    const a = await improve(config(w1, { seed: 7 }));
    const prompts = server.requests.slice(before).map(r => r.prompt);
    useKindsModel(server);
    const b = await improve(config(w2, { seed: 7 }));
    assert.equal(readFileSync(a.out, 'utf8'), readFileSync(b.out, 'utf8'));
    assert.deepEqual(a.added, b.added);
    // No dev or test input is ever in a prompt's demonstrations; dev and test inputs are only ever the task run.
    const devTest = [...kindsData(2, 200), ...kindsData(4, 300)].map(e => e.input);
    for (const p of prompts) {
      const task = [...p.matchAll(/^Input: (.*)$/gm)].map(m => m[1]);
      for (const input of devTest) assert.ok(!task.slice(0, -1).includes(input), `${input} shown as a demonstration`);
    }
  });

  test('a stop keeps what ran; the same command resumes and sends no request twice', async () => {
    useKindsModel(server);
    const w = workspace();
    const stop = new AbortController();
    let results = 0;
    await assert.rejects(
      improve(
        config(w, {
          signal: stop.signal,
          onResult: () => {
            if (++results === 20) stop.abort();
          },
        }),
      ),
      ImproveStopped,
    );
    const resumed = await improve(config(w));
    useKindsModel(server);
    const whole = await improve(config(workspace()));
    // The 20 examples finished before the stop are not run again.
    assert.ok(resumed.requestsSent <= whole.requestsSent - 20 * 2, `resumed sent ${resumed.requestsSent}, whole ${whole.requestsSent}`);
    assert.ok(resumed.significant);
    // Run once more: everything is reused.
    const third = await improve(config(w));
    assert.equal(third.requestsSent, 0);
  });

  test('the budget: too small is refused before anything runs; the requests stay within it', async () => {
    useKindsModel(server);
    const w = workspace();
    const n = server.requests.length;
    await assert.rejects(improve(config(w, { budget: 20 })), PlanError);
    assert.equal(server.requests.length, n, 'nothing ran');
    const plan = planBudget(130, { train: 9, dev: 6, test: 12 }, 2, { maxRounds: 3, maxSets: 16 });
    assert.equal(plan.least, (6 + 2 * 12) * 2 + 9 * 2 + 6 * 2);
    const end = await improve(config(workspace(), { budget: plan.least + 10 }));
    assert.ok(end.requests <= plan.least + 10, `${end.requests} requests`);
    assert.equal(end.plan.rounds, 1);
  });
});

describe('the splits', () => {
  const ex = (id: string, input: string, line = 1): EvalExample => ({ id, input, target: '1', line });
  test('a training example whose input is in dev or test is left out, and said', () => {
    const s = checkSplits({ train: [ex('a', 'What is 1 plus 2?'), ex('b', 'x')], dev: [ex('c', 'what is 1  plus 2?')], test: [ex('d', 'y')] });
    assert.deepEqual(
      s.train.map(e => e.id),
      ['b'],
    );
    assert.match(s.notes[0], /training example a .* also in the dev split/);
  });
  test('a seeded split is the same each time, disjoint and complete', () => {
    const all = Array.from({ length: 20 }, (_, i) => ex(String(i), `q${i}`, i + 1));
    const a = splitExamples(all, 3);
    assert.deepEqual(a, splitExamples(all, 3));
    assert.notDeepEqual(a, splitExamples(all, 4));
    const ids = [...a.train, ...a.dev, ...a.test].map(e => e.id).sort();
    assert.deepEqual(ids, all.map(e => e.id).sort());
    assert.deepEqual([a.train.length, a.dev.length, a.test.length], [10, 5, 5]);
  });
  test('a candidate set keeps the rest of the library as it was', () => {
    const text = libraryText(
      KINDS_LIBRARY,
      { dropped: [], added: [{ id: 't1', line: 2, round: 0, program: 'Input: q\nQ1: [EOQ]\nAns: 1' }] },
      '/x/train.jsonl',
    );
    assert.ok(text.startsWith(KINDS_LIBRARY.split('----')[0]));
    assert.match(
      text,
      /# art improve: from training example "t1" \(train.jsonl:2\)\nInput: q\nQ1: \[EOQ\]\nAns: 1\n----\nDescription: \(Arithmetic\) Solve the problem.\nInput: %s\nQ1:$/,
    );
    const dropped = libraryText(KINDS_LIBRARY, { dropped: [0], added: [] }, '/x/train.jsonl');
    assert.equal(parseArt(dropped).programs.length, 1);
  });
});
