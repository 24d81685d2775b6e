// Issue 29 item 6: command templates that ran the model's text as code with no warning, and arguments that let it
// through as an option. Each template of the issue is read by the tool file (the warning) and run by the registry
// (the protection), with the model's text an attacker would write.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolRegistry } from '../../../core/tools/registry';
import { parseToolsFile } from '../../../core/tools/toolsFile';
import { ctx } from './helpers';

let workspace: string;
before(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'art-templates-'));
});
after(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** The tool file's warnings for each command, by command. */
function warningsOf(commands: string[][]): string[][] {
  const loaded = parseToolsFile(
    JSON.stringify({ tools: commands.map((command, i) => ({ kind: 'command', name: `t${i}`, command })) }),
    '.art-tools.json',
  );
  assert.deepEqual(loaded.errors, []);
  return commands.map((_, i) => (loaded.warnings ?? []).filter(w => w.startsWith(`.art-tools.json: tools[${i}]`)));
}

/** Runs one command tool of a fresh registry with `instruction` as the model's text. */
async function runTool(command: string[], instruction: string) {
  await writeFile(join(workspace, '.art-tools.json'), JSON.stringify({ tools: [{ kind: 'command', name: 'tool', command }] }));
  const reg = await createToolRegistry({ workspaceRoot: workspace, trusted: true });
  try {
    return await reg.get('tool')!.run({ instruction }, ctx());
  } finally {
    await reg.dispose();
  }
}

describe('command templates', () => {
  test("the model's text as code is warned about: combined flags, wrappers, any interpreter's -c or -e", () => {
    const unsafe = [
      ['bash', '-lc', 'echo {input}'],
      ['bash', '-ec', 'echo {input}'],
      ['/usr/bin/env', 'sh', '-c', 'echo {input}'],
      ['python3', '-c', "print('{input}')"],
      ['env', '-i', 'PATH=/usr/bin', 'bash', '-c', 'grep {input} notes.txt'],
      ['busybox', 'sh', '-c', 'echo {input}'],
      ['timeout', '5', 'sh', '-c', 'echo {input}'],
      ['nice', '-n', '10', 'python3', '-Ic', 'print("{input}")'],
      ['sudo', '-u', 'nobody', 'perl', '-ne', 'print "{input}"'],
      ['node', '-e', 'console.log("{input}")'],
      ['ruby', '-e', 'puts "{input}"'],
      ['env', '-S', 'sh -c {input}'],
      ['xargs', 'grep', 'TODO'],
    ];
    const safe = [
      ['sh', '-c', 'grep "$1" notes.txt', 'sh', '{input}'],
      ['python3', '-c', 'import sys; print(sys.argv[1])', '{input}'],
      ['env', 'LC_ALL=C', 'grep', '-F', '--', '{input}', 'notes.txt'],
      ['grep', '-e', 'TODO', '{input}'],
      ['timeout', '5', 'python3', 'tool.py', '{input}'],
    ];
    const warned = warningsOf(unsafe);
    unsafe.forEach((command, i) => {
      assert.equal(warned[i].length, 1, `${JSON.stringify(command)}: ${JSON.stringify(warned[i])}`);
      assert.match(warned[i][0], /: (the model's text goes into|env -S splits|xargs makes the model's text)[^\n]*\(fix: /);
    });
    assert.match(warned[0][0], /^\.art-tools\.json: tools\[0\]\.command: the model's text goes into a shell line, so a step can run any command/);
    assert.match(warned[2][0], /a shell line \(through env\)/);
    assert.match(warned[3][0], /the code python3 runs \(-c\)/);
    assert.deepEqual(
      warningsOf(safe),
      safe.map(() => []),
    );
  });

  test('grep -e TODO {input}: --version is a file name, not an option (-e is no code flag for grep)', async () => {
    const r = await runTool(['grep', '-e', 'TODO', '{input}'], '--version');
    assert.equal(r.ok, false);
    const said = JSON.stringify(r);
    assert.doesNotMatch(said, /GNU grep|Copyright/i, 'grep printed its version: --version was read as an option');
    assert.match(said, /--version: No such file or directory/);
  });

  test('sort {input}.txt: -o/FILE does not truncate FILE.txt', async () => {
    const victim = join(workspace, 'victim.txt');
    await writeFile(victim, 'precious\n');
    const r = await runTool(['sort', '{input}.txt'], `-o${join(workspace, 'victim')}`);
    assert.equal(r.ok, false);
    assert.equal(await readFile(victim, 'utf8'), 'precious\n');
    assert.match(JSON.stringify(r), /No such file or directory/);
  });

  test('a placeholder before a fixed option: a value that starts with "-" is refused, one that does not runs', async () => {
    await writeFile(join(workspace, 'notes.txt'), 'a TODO here\n');
    const refused = await runTool(['grep', '{input}', '-r', 'notes.txt'], '-f/etc/passwd');
    assert.equal(refused.ok, false);
    assert.match(
      JSON.stringify(refused),
      /\[tool\] was not run: the input begins with \\"-\\" and \\"\{input\}\\" comes before the option \\"-r\\"[^"]*put \\"--\\" before it in \\"command\\" in \.art-tools\.json/,
    );
    const ran = await runTool(['grep', '{input}', '-r', 'notes.txt'], 'TODO');
    assert.ok(ran.ok, JSON.stringify(ran));
  });

  test('an interpreter\'s code reads its own arguments as they are: no "--" is added there', async () => {
    const r = await runTool(['python3', '-c', 'import sys; print(sys.argv[1:])', '{input}'], '-x');
    assert.ok(r.ok, JSON.stringify(r));
    assert.equal((r as { output: string }).output, "['-x']");
    const shell = await runTool(['sh', '-c', 'printf "%s|" "$@"', 'sh', '{input}.txt'], '-x');
    assert.equal((shell as { output: string }).output, '-x.txt|');
  });
});
