// The sibling libraries of task selection: one that cannot be read is left out, and the run says so once, naming it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArt } from '../../../core/art/parse';
import { readTextFile } from '../../../core/common/textFile';
import { prepareRun } from '../../../core/launch/launch';
import { folderLibraries } from '../../../core/evaluation/taskSelection';
import { fixturePath } from '../../support/runs';

describe('folderLibraries: an unreadable sibling .art', () => {
  let dir: string;
  let library: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'art-siblings-'));
    library = join(dir, 'arithmetic.art');
    copyFileSync(fixturePath('programs/arithmetic.art'), library);
    copyFileSync(fixturePath('programs/arithmetic.art'), join(dir, 'good.art'));
    mkdirSync(join(dir, 'folder.art'));
    writeFileSync(join(dir, 'binary.art'), Buffer.from([0x51, 0x31, 0x00, 0xff, 0xfe, 0x0a]));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('is left out, and each one is named in one line', () => {
    const lines: string[] = [];
    const libs = folderLibraries(library, parseArt(readTextFile(library)), line => lines.push(line));
    assert.deepEqual(
      libs.map(l => l.path),
      [library, join(dir, 'good.art')],
    );
    assert.equal(lines.length, 2);
    assert.ok(lines.every(l => !l.includes('\n') && /left out of task selection/.test(l)));
    assert.ok(lines[0].startsWith(`${join(dir, 'binary.art')}: `));
    assert.ok(lines[1].startsWith(`${join(dir, 'folder.art')}: is a directory`));
  });

  test('a run with select "similar" logs it once per file', async () => {
    const lines: string[] = [];
    const run = await prepareRun({ program: library, task: 1, mode: 'replay', trusted: true, select: 'similar', log: line => lines.push(line) });
    await run.dispose();
    const skipped = lines.filter(l => /left out of task selection/.test(l));
    assert.equal(skipped.length, 2, lines.join('\n'));
    assert.ok(skipped.every(l => l.startsWith('select similar: ')));
  });
});
