import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLookupTool, DEFAULT_WORD_LIST, parseCandidates } from '../../../core/tools/lookup';
import { requireDebianPackage } from '../../support/debian';
import { ctx } from './helpers';

describe('lookup', () => {
  test('candidate lists: JSON, Python, quoted, bare', () => {
    assert.deepEqual(parseCandidates('["nwist", "twins"]'), ['nwist', 'twins']);
    assert.deepEqual(parseCandidates("['nwist', 'twins']"), ['nwist', 'twins']);
    assert.deepEqual(parseCandidates('Is "twins" a word?'), ['twins']);
    assert.deepEqual(parseCandidates('nwist, twins'), ['nwist', 'twins']);
  });

  test('the unscramble program: of the permutations only "twins" is a word (Debian word list)', async () => {
    requireDebianPackage('wamerican');
    const tool = createLookupTool();
    const perms = '["nwist", "nwits", "nwsit", "nwsti", "nwtis", "nwtsi", "niwst", "niwts", "niswt", "twins"]';
    const r = await tool.run({ instruction: 'Which word in the list is a common English word?', previousAnswer: perms }, ctx());
    assert.ok(r.ok, `${JSON.stringify(r)} (is Debian's wamerican installed at ${DEFAULT_WORD_LIST}?)`);
    assert.equal(r.output, 'twins');
  });

  test('several words come back as a JSON list; proper nouns do not count in lower case', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'art-words-'));
    try {
      const list = join(dir, 'words');
      await writeFile(list, 'cat\ndog\nTwain\n');
      const tool = createLookupTool({ wordListPath: list });
      const r = await tool.run({ instruction: 'Which are words?', previousAnswer: '["Cat", "dog", "twain", "Twain", "xq"]' }, ctx());
      assert.ok(r.ok);
      assert.equal(r.output, '["Cat","dog","Twain"]');
      const none = await tool.run({ instruction: 'Which are words?', previousAnswer: '["xq", "zz"]' }, ctx());
      assert.match(!none.ok ? none.error : '', /none of the 2 candidate word\(s\) is in the word list/);
      const fromInstruction = await tool.run({ instruction: 'Is "dog" a common English word?' }, ctx());
      assert.ok(fromInstruction.ok);
      assert.equal(fromInstruction.output, 'dog');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('a missing word list says how to install one', async () => {
    const r = await createLookupTool({ wordListPath: '/nonexistent/words' }).run({ instruction: 'x', previousAnswer: '["a"]' }, ctx());
    assert.match(!r.ok ? r.error : '', /word list \/nonexistent\/words is missing: install Debian's word list \(apt-get install wamerican\)/);
  });
});
