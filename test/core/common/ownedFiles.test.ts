// The one writer of the files ART owns (core/common/ownedFiles.ts) and the path rule of the confined shells
// (core/common/folders.ts): no write follows a link, dangling or not, at the file or in a folder under `.art`; a file
// that must be new is never one that exists; a move never replaces a file; a dangling link resolves to where it points.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isInside, realPath } from '../../../core/common/folders';
import { makeOwnedFolder, moveOwnedFile, openOwnedFile, OwnedFileError, writeOwnedFile } from '../../../core/common/ownedFiles';

const tmp = () => mkdtempSync(join(tmpdir(), 'art-owned-'));
const refusedAsLink = (e: unknown) =>
  e instanceof OwnedFileError && e.kind === 'link' && /symbolic link/.test(e.message) && !e.message.includes('\n');

describe('realPath', () => {
  test('a dangling link resolves to where it points: outside the folder it lies in', () => {
    const d = tmp();
    mkdirSync(join(d, 'ws'));
    symlinkSync(join(d, 'outside/evil.jsonl'), join(d, 'ws/t.jsonl'));
    assert.equal(realPath(join(d, 'ws/t.jsonl')), join(realPath(d), 'outside/evil.jsonl'));
    assert.ok(!isInside(realPath(join(d, 'ws')), realPath(join(d, 'ws/t.jsonl'))));
    // A dangling link to a folder, with the rest of the path under it; a chain of two links; a relative target.
    symlinkSync('../outside/new', join(d, 'ws/dir'));
    symlinkSync(join(d, 'ws/dir'), join(d, 'ws/chain'));
    assert.equal(realPath(join(d, 'ws/chain/a/b.txt')), join(realPath(d), 'outside/new/a/b.txt'));
  });

  test('a dangling link whose target climbs out of a linked folder (a/../x) resolves where the system resolves it', () => {
    // Before: the target was resolved by its text, `a/..` cancelling out, so ws/t.jsonl -> a/../x.jsonl with
    // ws/a -> OUTSIDE/dir was ws/x.jsonl, inside; a write through the link made OUTSIDE/x.jsonl.
    const d = tmp();
    mkdirSync(join(d, 'ws'));
    mkdirSync(join(d, 'outside/dir'), { recursive: true });
    symlinkSync(join(d, 'outside/dir'), join(d, 'ws/a'));
    symlinkSync('a/../x.jsonl', join(d, 'ws/t.jsonl'));
    assert.equal(realPath(join(d, 'ws/t.jsonl')), join(realPath(d), 'outside/x.jsonl'));
    writeFileSync(join(d, 'ws/t.jsonl'), 'through the link');
    assert.ok(existsSync(join(d, 'outside/x.jsonl')), 'the system resolves it there');
    // The same climb in a link to a missing folder, with the rest of the path under it.
    symlinkSync('a/../new', join(d, 'ws/up'));
    assert.equal(realPath(join(d, 'ws/up/b.txt')), join(realPath(d), 'outside/new/b.txt'));
  });

  test('a loop of links ends; a missing file under a real folder is that folder and its name', () => {
    const d = tmp();
    symlinkSync(join(d, 'b'), join(d, 'a'));
    symlinkSync(join(d, 'a'), join(d, 'b'));
    assert.ok(realPath(join(d, 'a')).startsWith(realPath(d)));
    assert.equal(realPath(join(d, 'none/x.txt')), join(realPath(d), 'none/x.txt'));
  });
});

describe('writing a file ART owns', () => {
  test('a link at the file, to a file or dangling, is refused in every mode; neither target is touched', () => {
    const d = tmp();
    writeFileSync(join(d, 'bashrc'), 'export A=1\n');
    symlinkSync(join(d, 'bashrc'), join(d, 'to-file'));
    symlinkSync(join(d, 'absent'), join(d, 'dangling'));
    for (const mode of ['new', 'replace', 'append'] as const)
      for (const name of ['to-file', 'dangling']) assert.throws(() => writeOwnedFile(join(d, name), 'x\n', mode), refusedAsLink, `${mode} ${name}`);
    assert.throws(() => openOwnedFile(join(d, 'to-file'), 'update'), refusedAsLink);
    assert.equal(readFileSync(join(d, 'bashrc'), 'utf8'), 'export A=1\n');
    assert.ok(!existsSync(join(d, 'absent')));
  });

  test('"new" never opens a file that exists; "replace" and "append" do what they say', () => {
    const d = tmp();
    const f = join(d, 'f.txt');
    writeOwnedFile(f, 'one\n', 'new');
    assert.throws(
      () => writeOwnedFile(f, 'two\n', 'new'),
      (e: unknown) => e instanceof OwnedFileError && e.kind === 'exists',
    );
    writeOwnedFile(f, 'two\n', 'append');
    assert.equal(readFileSync(f, 'utf8'), 'one\ntwo\n');
    writeOwnedFile(f, 'three\n', 'replace');
    assert.equal(readFileSync(f, 'utf8'), 'three\n');
  });

  test('under .art every folder is made, and a link at any of them (to a folder or dangling) is refused', () => {
    const d = tmp();
    const outside = join(d, 'outside');
    mkdirSync(outside);
    writeOwnedFile(join(d, 'ws/.art/improve/lib/sets/h/lib.art'), 'text\n', 'replace');
    assert.equal(readFileSync(join(d, 'ws/.art/improve/lib/sets/h/lib.art'), 'utf8'), 'text\n');
    for (const [at, rest] of [
      ['ws2/.art', 'runs/x.jsonl'],
      ['ws3/.art/runs', 'x.jsonl'],
      ['ws4/.art/improve/lib', 'sets/h/lib.art'],
    ]) {
      mkdirSync(join(d, at, '..'), { recursive: true });
      symlinkSync(outside, join(d, at));
      assert.throws(() => writeOwnedFile(join(d, at, rest), 'x\n', 'replace'), refusedAsLink, at);
      assert.throws(() => makeOwnedFolder(join(d, at, rest, '..')), refusedAsLink, at);
    }
    mkdirSync(join(d, 'ws5'));
    symlinkSync(join(d, 'nowhere'), join(d, 'ws5/.art'));
    assert.throws(() => writeOwnedFile(join(d, 'ws5/.art/runs/x.jsonl'), 'x\n', 'new'), refusedAsLink);
    assert.deepEqual(readdirSync(outside), [], 'nothing was written through a link');
    assert.ok(!existsSync(join(d, 'nowhere')));
  });

  test('a folder the user names may be reached through a link; only the file itself may not be one', () => {
    const d = tmp();
    mkdirSync(join(d, 'real'));
    symlinkSync(join(d, 'real'), join(d, 'via'));
    writeOwnedFile(join(d, 'via/t.jsonl'), 'x\n', 'replace');
    assert.equal(readFileSync(join(d, 'real/t.jsonl'), 'utf8'), 'x\n');
  });

  test('a FIFO is refused at once, never waited on; /dev/null is written only when a device is allowed', () => {
    const d = tmp();
    execFileSync('mkfifo', [join(d, 'pipe')]);
    assert.throws(() => writeOwnedFile(join(d, 'pipe'), 'x\n', 'append'), OwnedFileError);
    assert.throws(() => writeOwnedFile('/dev/null', 'x\n', 'append'), OwnedFileError);
    writeOwnedFile('/dev/null', 'x\n', 'replace', { device: true });
  });

  test('a move never replaces a file, and never moves a link', () => {
    const d = tmp();
    mkdirSync(join(d, '.partial'));
    writeFileSync(join(d, '.partial/m.gguf'), 'new');
    writeFileSync(join(d, 'm.gguf'), 'old');
    assert.throws(
      () => moveOwnedFile(join(d, '.partial/m.gguf'), join(d, 'm.gguf'), { base: d }),
      (e: unknown) => e instanceof OwnedFileError && e.kind === 'exists',
    );
    assert.equal(readFileSync(join(d, 'm.gguf'), 'utf8'), 'old');
    moveOwnedFile(join(d, '.partial/m.gguf'), join(d, 'n.gguf'), { base: d });
    assert.equal(readFileSync(join(d, 'n.gguf'), 'utf8'), 'new');
    assert.ok(!existsSync(join(d, '.partial/m.gguf')));
    symlinkSync('/etc/hostname', join(d, '.partial/l.gguf'));
    assert.throws(() => moveOwnedFile(join(d, '.partial/l.gguf'), join(d, 'l.gguf'), { base: d }), refusedAsLink);
    assert.ok(lstatSync(join(d, '.partial/l.gguf')).isSymbolicLink() && !existsSync(join(d, 'l.gguf')));
  });
});
