// Issue 29 item 5: `art run` printed a model's OSC 52 (clipboard write), ESC[2J and OSC 8 sequences raw to the
// terminal; so did `art run TRACE`, `art prompt`, `art diff`, `art compare` (from a results header) and a code step's
// output. Each command runs the built CLI under a pseudo-terminal (`script`), as a user's shell runs it, on text that
// holds those sequences: the terminal receives no control character but the pseudo-terminal's own line ends, and
// sees each sequence written out (`\x1b]52;...`). `--json` gives the same text back exactly, escaped as JSON does.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI } from '../support/cli';
import { ScriptedServer } from '../support/scriptedServer';
import { ContinuationScript } from '../../core/replay/script';
import type { ResultsHeader } from '../../core/evaluation/header';
import { result } from '../support/evalResults';
import { terminalJson, visibleControls } from '../../core/common/terminalText';

const ESC = '\x1b';
const BEL = '\x07';
const CLIPBOARD = `${ESC}]52;c;SGVsbG8=${BEL}`;
const CLEAR = `${ESC}[2J`;
const LINK = `${ESC}]8;;http://evil.example${BEL}click${ESC}]8;;${BEL}`;
/** What the code step gives (its `ans`): a clipboard write of its own and a clear screen. */
const CODE_OUTPUT = `${ESC}]52;c;UHduZWQ=${BEL}${CLEAR}`;

const work = mkdtempSync(join(tmpdir(), 'art-terminal-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** A library whose recorded model text and code output hold the sequences. */
const library = (answer: string) =>
  'Description: (Evil) A task whose recorded text holds terminal controls.\n' +
  `Input: What does the terminal do?${CLEAR}\n` +
  `Q1: [generate python code] write code that prints${CLIPBOARD}\n` +
  '#1:\nans = "\\x1b]52;c;UHduZWQ=\\x07\\x1b[2J"\n' +
  'Q2: [code execute] Execute the python code in #1 and get the value of "ans"\n' +
  `#2:\n${CODE_OUTPUT}\n` +
  `Q3: [EOQ]\nAns: ${answer}\n`;

/** Runs `art ARGS` under a pseudo-terminal; resolves to what the terminal received. */
function underTerminal(args: string[]): Promise<{ code: number | null; screen: string }> {
  const line = [process.execPath, CLI, ...args].map(a => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const p = spawn('script', ['-qfec', line, '/dev/null'], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
    let screen = '';
    p.stdout.on('data', (c: Buffer) => (screen += c.toString('utf8')));
    p.stderr.on('data', (c: Buffer) => (screen += c.toString('utf8')));
    p.on('error', reject);
    p.on('close', code => resolve({ code, screen }));
  });
}

/** No control character reached the terminal but its line ends (the pseudo-terminal writes \n as \r\n). */
function assertNoControls(what: string, screen: string): void {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  const raw = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/.exec(screen.replace(/\r\n/g, '\n'));
  assert.equal(raw, null, `${what}: ${JSON.stringify(raw?.[0])} reached the terminal in ${JSON.stringify(screen.slice(0, 2000))}`);
}

describe('the terminal receives no control character from text the CLI did not write', () => {
  const lib = join(work, 'lib.art');
  const trace = join(work, 'run.jsonl');
  before(() => writeFileSync(lib, library(LINK)));

  test('art run (replay): the recorded model text and the code step output', async () => {
    const r = await underTerminal(['run', lib, '--mode', 'replay', '--trace', trace]);
    assertNoControls('art run', r.screen);
    assert.equal(r.code, 0, r.screen);
    assert.ok(r.screen.includes(visibleControls(CLIPBOARD)), r.screen);
    assert.ok(r.screen.includes(`#2: ${visibleControls(CODE_OUTPUT)}`), 'the code step output, written out');
    assert.ok(r.screen.includes('Ans: \\x1b]8;;http://evil.example\\x07click\\x1b]8;;\\x07'), r.screen);
  });

  test('art run against a model that writes the sequences', async () => {
    const server = new ScriptedServer();
    await server.start();
    try {
      server.setScripts(
        ContinuationScript.parse(
          ' [generate python code] write code\n#⟂1:⟦\nans = "\\x1b]52;c;UHduZWQ=\\x07\\x1b[2J"⟧\n' +
            `Q2: [code execute] Execute the python code in #1 and get the value of "ans"\n#⟂2:⟦\n${CODE_OUTPUT}⟧\nQ3: [EOQ]\nAns: ${CLIPBOARD}${LINK}\n`,
          'Q1:',
        ),
      );
      const input = 'A new question';
      const r = await underTerminal(['run', lib, '--input', input, '--base-url', server.baseURL, '--model', 'scripted']);
      assertNoControls('art run (generate)', r.screen);
      assert.ok(r.screen.includes(`Ans: ${visibleControls(CLIPBOARD + LINK)}`), r.screen);
      assert.ok(server.requests.length > 0, 'the model was asked');
    } finally {
      await ScriptedServer.closeAll();
    }
  });

  test('art run TRACE, art diff TRACE_A TRACE_B', async () => {
    const other = join(work, 'other.art');
    const otherTrace = join(work, 'other.jsonl');
    writeFileSync(other, library(`${CLEAR}another${BEL}`));
    assert.equal((await underTerminal(['run', lib, '--mode', 'replay', '--trace', trace, '--quiet'])).code, 0);
    assert.equal((await underTerminal(['run', other, '--mode', 'replay', '--trace', otherTrace, '--quiet'])).code, 0);
    const replayed = await underTerminal(['run', trace]);
    assertNoControls('art run TRACE', replayed.screen);
    assert.ok(replayed.screen.includes(visibleControls(LINK)), replayed.screen);
    const diff = await underTerminal(['diff', trace, otherTrace]);
    assertNoControls('art diff', diff.screen);
    assert.ok(diff.screen.includes('\\x1b[2Janother\\x07'), diff.screen);
  });

  test('art prompt, and art prompt --json gives the text back exactly', async () => {
    const r = await underTerminal(['prompt', lib, '--input', `new${CLIPBOARD}`]);
    assertNoControls('art prompt', r.screen);
    assert.ok(r.screen.includes(`new${visibleControls(CLIPBOARD)}`), r.screen);
    const json = await underTerminal(['prompt', lib, '--input', `new${CLIPBOARD}\u009b2J`, '--json']);
    assertNoControls('art prompt --json', json.screen);
    const report = JSON.parse(json.screen.replace(/\r\n/g, '\n')) as Record<string, unknown>;
    assert.ok(JSON.stringify(report).includes(JSON.stringify(`new${CLIPBOARD}\u009b2J`).slice(1, -1)), 'the exact text, C1 included');
  });

  test('art compare: a results header and an input hold the sequences', async () => {
    const header = (model: string): ResultsHeader => ({
      kind: 'art-evaluation',
      version: 1,
      date: '2025-01-02T03:04:05.000Z',
      library: { path: `lib${CLEAR}.art`, sha256: 'a'.repeat(64) },
      data: { path: 'data.jsonl', sha256: 'd'.repeat(64) },
      model,
      endpoint: 'http://127.0.0.1:8000/v1',
      options: { api: 'completions', select: 'same-file', samples: 1, constrain: 'off', inlineTriggers: false },
    });
    const write = (name: string, model: string, exact: boolean) => {
      const path = join(work, name);
      const rows = [header(model), result('e1', exact, { input: `question${CLIPBOARD}`, answer: `x${LINK}` })];
      writeFileSync(path, rows.map(x => JSON.stringify(x)).join('\n') + '\n');
      return path;
    };
    const a = write('a.results.jsonl', `model-a${CLIPBOARD}`, true);
    const b = write('b.results.jsonl', `model-b${CLEAR}`, false);
    const r = await underTerminal(['compare', a, b]);
    assertNoControls('art compare', r.screen);
    assert.ok(r.screen.includes(visibleControls(`model-a${CLIPBOARD}`)), r.screen);
    const json = await underTerminal(['compare', a, b, '--json']);
    assertNoControls('art compare --json', json.screen);
    assert.ok(json.screen.includes(terminalJson(`model-a${CLIPBOARD}`)), json.screen);
  });

  test('the helper: C0, DEL and C1 written out; newline, tab and the CR of a CRLF kept; JSON escapes C1 too', () => {
    assert.equal(visibleControls(`a${ESC}[2J\tb\r\nc\rd\x7f\u009be`), 'a\\x1b[2J\tb\r\nc\\x0dd\\x7f\\x9be');
    assert.equal(terminalJson(`${ESC}\u009b\x7f`), '"\\u001b\\u009b\\u007f"');
    assert.equal(JSON.parse(terminalJson(`${ESC}\u009b\x7f`)), `${ESC}\u009b\x7f`);
    assert.equal(readFileSync(join(work, 'lib.art'), 'utf8').includes(ESC), true, 'the fixture holds raw sequences');
  });
});
