import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCorpus, splitDocument, splitSentences } from '../../../core/tools/corpus';
import { QUESTION_SEPARATOR } from '../../../core/tools/rerank';
import { createSearchTool } from '../../../core/tools/search';
import { answeringModel } from '../../support/fakeModels';
import { CORPUS_DIR, ctx } from './helpers';

describe('corpus', () => {
  test('a markdown heading is the title and paragraphs are passages', () => {
    const d = splitDocument('a.md', '# Alpha\n\nFirst one.\nStill first.\n\nSecond one.\n');
    assert.equal(d.title, 'Alpha');
    assert.deepEqual(
      d.passages.map(p => p.text),
      ['First one. Still first.', 'Second one.'],
    );
  });

  test('a long paragraph is cut at sentence ends', () => {
    const sentence = 'This sentence has exactly eight words in it. ';
    const d = splitDocument('b.txt', sentence.repeat(40));
    assert.ok(d.passages.length >= 3, `got ${d.passages.length} passages`);
    for (const p of d.passages) assert.match(p.text, /in it\.$/);
  });

  test('sentences split at end punctuation but not inside "U.S. president"', () => {
    assert.deepEqual(splitSentences('He was named after U.S. president Nixon. Then "she" came! Is it 5 p.m. now?'), [
      'He was named after U.S. president Nixon.',
      'Then "she" came!',
      'Is it 5 p.m. now?',
    ]);
  });

  test('the index is cached per folder and rebuilt when a file changes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'art-corpus-'));
    try {
      const file = join(dir, 'doc.txt');
      await writeFile(file, 'Zebras are striped animals of Africa.');
      const first = await loadCorpus(dir);
      assert.equal(await loadCorpus(dir), first, 'unchanged folder: same corpus object');
      assert.equal(first.searchPassages('giraffe', 3).length, 0);
      await writeFile(file, 'Giraffes are the tallest animals.');
      await utimes(file, new Date(), new Date(Date.now() + 5000));
      const second = await loadCorpus(dir);
      assert.notEqual(second, first);
      assert.equal(second.searchPassages('giraffe', 3)[0].passage.file, 'doc.txt');
      await writeFile(join(dir, 'more.md'), '# Okapi\n\nThe okapi is related to the giraffe.');
      assert.equal((await loadCorpus(dir)).documents.length, 2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('search tool', () => {
  const search = createSearchTool({ corpusDir: CORPUS_DIR });

  test('finds the passage with the formula (human-feedback physics program, Q1)', async () => {
    const r = await search.run({ instruction: 'What is the formula for the horizontal component of the tension force?' }, ctx());
    assert.ok(r.ok, JSON.stringify(r));
    assert.match(r.output, /horizontal component \(Fx\) equals Ftens times the cosine of theta/);
    assert.equal(r.details?.appendToModelText, true);
  });

  test('finds where Mark Twain was born', async () => {
    const r = await search.run({ instruction: 'Where was Mark Twain born?' }, ctx());
    assert.ok(r.ok);
    assert.match(r.output.split('\n')[0], /born on November 30, 1835, in Florida, Missouri/);
  });

  test('no match and a missing folder are errors with the reason', async () => {
    const none = await search.run({ instruction: 'xylophone quasar' }, ctx());
    assert.equal(none.ok, false);
    assert.match(!none.ok ? none.error : '', /found no passage matching "xylophone quasar"/);
    const missing = await createSearchTool({ corpusDir: '/nonexistent/corpus' }).run({ instruction: 'Milhouse' }, ctx());
    assert.equal(missing.ok, false);
    assert.match(!missing.ok ? missing.error : '', /corpus folder \/nonexistent\/corpus does not exist/);
    const empty = await search.run({ instruction: '  ' }, ctx());
    assert.match(!empty.ok ? empty.error : '', /needs a query/);
  });

  test('NLL rerank puts the passage that makes the question likely first', async () => {
    const question = 'Who was Milhouse named after?';
    const plain = await createSearchTool({ corpusDir: CORPUS_DIR, maxPassages: 1 }).run({ instruction: question }, ctx());
    assert.ok(plain.ok);
    assert.doesNotMatch(plain.output, /Mussolini/, 'BM25 alone prefers another passage');
    // One logprob per word of the prompt (an echoing endpoint); question words are likely only after "Mussolini".
    const model = answeringModel(req => {
      const [passage, q] = req.prompt.split(QUESTION_SEPARATOR);
      const words = (s: string) => s.split(/\s+/).filter(Boolean);
      const qLogprob = passage.includes('Mussolini') ? -0.1 : -3;
      return { tokenLogprobs: [...words(passage).map(() => -1), ...words(q ?? '').map(() => qLogprob)] };
    });
    const reranked = await createSearchTool({ corpusDir: CORPUS_DIR, rerank: true, maxPassages: 1 }).run({ instruction: question }, ctx({ model }));
    assert.ok(reranked.ok);
    assert.match(reranked.output, /^Milhouse Mussolini Van Houten/);
    assert.equal((reranked.details?.rerank as { used: boolean }).used, true);
    assert.ok(model.requests.every(r => r.logprobs === true && r.maxTokens === 0));
  });

  test('without logprobs from the endpoint the BM25 order stays', async () => {
    const question = 'Who was Milhouse named after?';
    const model = answeringModel(() => ({ text: ' ', tokenLogprobs: undefined }));
    const plain = await createSearchTool({ corpusDir: CORPUS_DIR, maxPassages: 1 }).run({ instruction: question }, ctx());
    const r = await createSearchTool({ corpusDir: CORPUS_DIR, rerank: true, maxPassages: 1 }).run({ instruction: question }, ctx({ model }));
    assert.ok(r.ok && plain.ok);
    assert.equal(r.output, plain.output);
    assert.match(String((r.details?.rerank as { reason: string }).reason), /no log-probabilities/);
  });
});
