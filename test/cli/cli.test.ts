// The `art` command's check, parse and monitor: output formats, exit codes and one-line errors (in-process,
// test/support/cli.ts); which bundles of the built CLI a command loads (dist/cli.js in a child process).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fixturePath } from '../support/fixtures';
import { deepAgent } from '../core/agent/helpers';
import { CLI, runCli, runCliProcess } from '../support/cli';

const art = (...args: string[]) => runCli(args);
const tmp = mkdtempSync(join(tmpdir(), 'art-cli-'));
const write = (name: string, text: string) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};

const writeBytes = (name: string, bytes: Buffer) => {
  const p = join(tmp, name);
  writeFileSync(p, bytes);
  return p;
};
/** A file of `size` bytes that takes no disk space (all zeros, never written). */
const sparse = (name: string, size: number) => {
  const p = join(tmp, name);
  writeFileSync(p, '');
  truncateSync(p, size);
  return p;
};
const fifo = (name: string) => {
  const p = join(tmp, name);
  const r = spawnSync('mkfifo', [p]);
  assert.equal(r.status, 0, String(r.stderr));
  return p;
};

describe('art check', () => {
  test('a clean library: a one-line summary, exit 0; --quiet prints nothing', async () => {
    const files = [fixturePath('programs/arithmetic.art'), fixturePath('agents/react.agent')];
    const r = await art('check', ...files);
    assert.equal(r.stdout, 'checked 2 files: no problems\n');
    assert.equal(r.code, 0);
    const q = await art('check', '--quiet', ...files);
    assert.equal(q.stdout, '');
    assert.equal(q.code, 0);
  });

  test('errors: path:line:col: severity: message [code], exit 1', async () => {
    const f = fixturePath('check/errors.art');
    const r = await art('check', f);
    assert.equal(r.code, 1);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.equal(lines[2], 'checked 1 file: 2 errors');
    assert.match(lines[0], new RegExp(`^${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:4:1: error: .+ \\[missing-answer\\]$`));
    assert.match(lines[1], /:11:1: error: .+ \[malformed-query\]$/);
  });

  test('warnings only: exit 0', async () => {
    const r = await art('check', fixturePath('check/warnings.art'));
    assert.equal(r.code, 0);
    assert.match(r.stdout, /warning: .+ \[duplicate-program\]/);
  });

  // Issue 20 item 7: one file that cannot be read no longer hides the other files' diagnostics.
  test('a file that cannot be read among others: reported, the rest checked, exit 2', async () => {
    const errors = fixturePath('check/errors.art');
    const binary = writeBytes('binary-among.art', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1]));
    const clean = fixturePath('programs/arithmetic.art');
    const r = await art('check', errors, binary, clean);
    assert.equal(r.code, 2);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 3, r.stdout);
    assert.match(lines[0], /:4:1: error: .+ \[missing-answer\]$/);
    assert.equal(lines[2], 'checked 2 of 3 files: 2 errors; 1 could not be read');
    assert.equal(
      r.stderr,
      `${binary}: not a text file (it holds NUL bytes: a binary file?): give a task library (.art) or an agent spec (.agent) saved as UTF-8 text\n`,
    );
    const j = await art('check', '--json', errors, binary, clean);
    assert.equal(j.code, 2);
    const ds = JSON.parse(j.stdout) as { file: string; code: string; severity: string; message: string; range: unknown }[];
    assert.deepEqual(
      ds.map(d => [d.file, d.code, d.severity]),
      [
        [errors, 'missing-answer', 'error'],
        [errors, 'malformed-query', 'error'],
        [binary, 'unreadable-file', 'error'],
      ],
    );
    assert.match(ds[2].message, /^not a text file \(it holds NUL bytes: a binary file\?\): give a task library/);
    assert.deepEqual(ds[2].range, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
  });

  test('a file named twice is checked once; none read is never "no problems"', async () => {
    const clean = fixturePath('programs/arithmetic.art');
    const twice = await art('check', clean, clean.replace(/\/([^/]+)$/, '/./$1'));
    assert.equal(twice.stdout.trim(), 'checked 1 file: no problems');
    const missing = await art('check', '/nonexistent/a.art', '/nonexistent/./a.art');
    assert.equal(missing.code, 2);
    assert.equal(missing.stdout.trim(), 'nothing checked: 1 file could not be read');
  });

  test('--json: LSP-shaped, 0-based ranges', async () => {
    const f = write('bad.agent', '(define a\n  (:states (Q (:text "[Q]")))\n  (:behavior (next Q X)))\n');
    const r = await art('check', '--json', f);
    assert.equal(r.code, 1);
    const ds = JSON.parse(r.stdout);
    assert.deepEqual(
      ds.map((d: { code: string }) => d.code),
      ['unknown-state'],
    );
    assert.deepEqual(Object.keys(ds[0]).sort(), ['code', 'file', 'message', 'range', 'severity']);
    assert.deepEqual(ds[0].range.start, { line: 2, character: 21 });
    assert.equal(ds[0].file, f);
  });
});

describe('art parse', () => {
  test('.art: preamble, programs, steps with ranges, template flag', async () => {
    const r = await art('parse', '--json', fixturePath('programs/arithmetic.art'));
    assert.equal(r.code, 0);
    const tree = JSON.parse(r.stdout);
    assert.ok(tree.preamble.text.startsWith('In these examples'));
    const last = tree.programs.at(-1);
    assert.equal(last.template, true);
    const first = tree.programs[0];
    assert.equal(first.steps[0].name, 'generate python code');
    assert.equal(first.steps[1].name, 'code execute');
    assert.equal(first.steps.at(-1).isEoq, true);
    assert.equal(typeof first.steps[0].range.start.line, 'number');
    assert.ok(first.answer.text.length > 0);
  });

  test('.agent: states, initial and final state, behavior', async () => {
    const r = await art('parse', '--json', fixturePath('agents/react.agent'));
    const tree = JSON.parse(r.stdout);
    const a = tree.agents[0];
    assert.equal(a.name, 'react-agent');
    assert.deepEqual(a.initial, ['Ques']);
    assert.deepEqual(a.final, ['Ans']);
    assert.deepEqual(a.states.find((s: { name: string }) => s.name === 'Obs').flags, ['env-input']);
    assert.equal(a.behavior.op, 'next');
  });
});

describe('art parse and check: deep nesting', () => {
  test('100 levels: parsed and checked', async () => {
    const f = write('deep100.agent', deepAgent(100));
    const r = await art('parse', '--json', f);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).agents[0].name, 'deep');
    assert.equal((await art('check', f)).code, 0);
  });

  for (const depth of [2_999, 3_000, 4_999, 100_000]) {
    test(`${depth} levels: the "nested too deeply" diagnostic, no stack trace`, async () => {
      const f = write(`deep${depth}.agent`, deepAgent(depth));
      const parsed = await art('parse', '--json', f);
      assert.equal(parsed.code, 2);
      assert.equal(parsed.stdout, '');
      assert.equal(parsed.stderr.trim().split('\n').length, 1, parsed.stderr);
      assert.match(parsed.stderr, /deep\d+\.agent:\d+:\d+: Lists are nested too deeply to read \(the limit is \d+ levels\)/);
      const checked = await art('check', f);
      assert.equal(checked.code, 1);
      assert.match(checked.stdout, /: error: Lists are nested too deeply to read .*\[syntax\]$/m);
      assert.equal(checked.stderr, '');
    });
  }
});

describe('art monitor', () => {
  const spec = fixturePath('agents/react.agent');
  const trace = readFileSync(fixturePath('traces/react-milhouse.txt'), 'utf8');

  test('a trace that follows the spec: exit 0', async () => {
    const r = await art('monitor', '--json', spec, fixturePath('traces/react-milhouse.txt'));
    assert.equal(r.code, 0);
    const out = JSON.parse(r.stdout);
    assert.equal(out.valid, true);
    assert.equal(out.violation, null);
    assert.deepEqual(out.states.slice(0, 5), ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs']);
  });

  test('a skipped action: truncated before it, corrected with [Action]', async () => {
    const broken = trace.replace('[Action] Search\n', '');
    const r = await art('monitor', '--json', spec, write('skipped.txt', broken));
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout);
    assert.equal(out.valid, false);
    assert.equal(out.violation.found, 'Act-Inp');
    assert.deepEqual(out.violation.expected, ['Act']);
    assert.equal(out.corrected, broken.slice(0, out.violation.offset) + '[Action]');
  });

  test('text output names the violation at its line:column', async () => {
    const r = await art('monitor', spec, write('pre.txt', 'Hello\n' + trace));
    assert.equal(r.code, 1);
    assert.match(r.stdout, /pre\.txt:1:1: off-spec: found text that starts no state, expected Ques/);
    // Off-spec on the third line: the `[Action]` line is left out after the first thought.
    const lines = trace.split('\n');
    const skipped = [lines[0], lines[1], ...lines.slice(3)].join('\n');
    const s = await art('monitor', spec, write('skipped-line.txt', skipped));
    assert.match(s.stdout, /skipped-line\.txt:3:1: off-spec: found state Act-Inp, expected Act/);
  });
});

describe('art errors', () => {
  for (const [name, args, pattern] of [
    ['missing file', ['check', join(tmp, 'nope.art')], /nope\.art: no such file/],
    ['unknown extension', ['check', write('x.txt', 'hi')], /x\.txt: unknown file type '\.txt'/],
    ['a directory', ['check', tmp], /is a directory/],
    ['unknown command', ['frobnicate'], /unknown command 'frobnicate'/],
    ['monitor without a trace', ['monitor', fixturePath('agents/react.agent')], /give a spec \(\.agent\) and a trace/],
    ['monitor with an .art spec', ['monitor', fixturePath('programs/cot.art'), fixturePath('traces/react-milhouse.txt')], /must be an agent spec/],
    ['a named pipe', ['check', fifo('pipe.art')], /pipe\.art: not a regular file \(a named pipe\): give a regular \.art or \.agent file\n$/],
    [
      'a 600 MB file',
      ['check', sparse('huge.art', 600 * 1024 * 1024)],
      /huge\.art: too large \(600 MB; the limit is 100 MB\): split it into smaller files\n$/,
    ],
    ['a 600 MB file to parse', ['parse', sparse('huge.agent', 600 * 1024 * 1024)], /huge\.agent: too large \(600 MB/],
    [
      'a binary file',
      ['check', writeBytes('image.art', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]))],
      /image\.art: not a text file \(it holds NUL bytes/,
    ],
    [
      'a file that is not UTF-8',
      ['check', writeBytes('latin1.art', Buffer.from('Input: caf\xe9\n', 'latin1'))],
      /latin1\.art: not a text file \(it is not valid UTF-8\)/,
    ],
  ] as const) {
    test(`${name}: one line on stderr, exit 2`, async () => {
      const r = await art(...args);
      assert.equal(r.code, 2);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, pattern);
    });
  }
});

describe('commands load only what they use', () => {
  /** The files of the CLI's bundles a command loaded (from require.cache at exit). */
  const loaded = async (...args: string[]) => {
    const hook = write(
      'loaded-hook.js',
      "process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(require.cache))));\n",
    );
    const r = await runCliProcess(args, { node: ['--require', hook] });
    const line = r.stderr.split('\n').find(l => l.startsWith('LOADED '));
    assert.ok(line, r.stderr);
    return (JSON.parse(line.slice('LOADED '.length)) as string[]).map(f => f.split(/[\\/]/).pop());
  };
  const library = () => write('lean.art', 'Input: x\nQ1: [search] y\n#1: z\nQ2: [EOQ]\nAns: z\n');

  test('check and parse do not load the runner bundle (model client, tools, MCP SDK)', async () => {
    for (const command of ['check', 'parse']) {
      const files = await loaded(command, library());
      assert.ok(files.includes('cli.js'), `${command}: ${files.join(', ')}`);
      assert.ok(!files.includes('cli-run.js'), `${command} loaded the runner: ${files.join(', ')}`);
    }
  });

  test('run loads it', async () => {
    assert.ok((await loaded('run', library(), '--mode', 'replay')).includes('cli-run.js'));
  });
});

describe('the built CLI as a process', () => {
  test('dist/cli.js runs by its shebang (as npm links it); exit codes 0, 1 and 2 reach the shell', () => {
    const run = (...args: string[]) => spawnSync(CLI, args, { encoding: 'utf8' });
    const clean = run('check', fixturePath('programs/arithmetic.art'));
    assert.equal(clean.status, 0, clean.stderr);
    assert.equal(clean.stdout, 'checked 1 file: no problems\n');
    assert.equal(run('check', fixturePath('check/errors.art')).status, 1);
    const usage = run('frobnicate');
    assert.equal(usage.status, 2);
    assert.equal(usage.stderr, "art: unknown command 'frobnicate': run 'art help' for the commands\n");
  });

  test('art --version, art version and art -v print the version of the package, exit 0', () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', 'version', '-v']) {
      const r = spawnSync(CLI, [flag], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, `art ${version}\n`, flag);
      assert.equal(r.stderr, '');
    }
  });
});
