// The ART paper's central claim measured on the default local model (Gemma 3 270M, the base model): the same model
// answers examples/data/word-problems.jsonl once with few-shot chain of thought and no tools
// (examples/art-vs-cot/cot.art) and once writing ART programs with tools (examples/art-vs-cot/tools.art: calculator,
// generated Python run in the sandbox), and `art compare` pairs the two. One command reproduces the table of
// docs/evaluation.md:
//
//   npm run art-vs-cot            (node --import tsx scripts/art-vs-cot.mjs [--out DIR] [--fresh])
//
// It builds dist/, provisions the model and llama-server (once per machine), serves the model with llama-server on
// 127.0.0.1 (two slots), runs `art eval` on both libraries (temperature 0, concurrency 2), then prints the comparison
// as a Markdown table and counts why each wrong answer was wrong, from the runs' traces (scripts/art-vs-cot-why.mjs).
// The results and traces stay in DIR (default .art-cache/art-vs-cot): run again, it resumes and runs nothing done;
// --fresh starts over.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { LLAMA_MODEL, startLlamaServer } from '../test/support/llamaServer.ts';
import { explainFailures } from './art-vs-cot-why.mjs';

const ROOT = new URL('..', import.meta.url).pathname;
const { values } = parseArgs({ options: { out: { type: 'string' }, fresh: { type: 'boolean' } } });
const out = resolve(ROOT, values.out ?? '.art-cache/art-vs-cot');
const DATA = join(ROOT, 'examples/data/word-problems.jsonl');
const SIDES = [
  { name: 'cot', library: join(ROOT, 'examples/art-vs-cot/cot.art'), label: 'few-shot CoT, no tools' },
  { name: 'tools', library: join(ROOT, 'examples/art-vs-cot/tools.art'), label: 'ART program with tools' },
];

const node = (args, what) => {
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal})`);
};
/** `node ARGS` without blocking this process (the server it started keeps being served). */
const nodeAsync = (args, what) =>
  new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', fail);
    child.on('close', (code, signal) => (code === 0 ? done() : fail(new Error(`${what} failed (exit ${code ?? signal})`))));
  });

if (values.fresh) rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
node(['scripts/build.mjs'], 'node scripts/build.mjs');
const server = await startLlamaServer({ parallel: 2 });
const started = new Date();
try {
  for (const side of SIDES) {
    console.log(`\n== ${side.label}: art eval ${side.library}`);
    await nodeAsync(
      [
        'dist/cli.js',
        'eval',
        side.library,
        ...['--data', DATA, '--task', 'Elementary Math'],
        ...['--base-url', server.baseURL, '--model', LLAMA_MODEL, '--temperature', '0', '--max-tokens', '256'],
        ...['--concurrency', '2', '--progress', 'lines'],
        ...['--out', join(out, `${side.name}.results.jsonl`), '--runs', join(out, 'runs')],
      ],
      `art eval ${side.name}`,
    );
  }
} finally {
  await server.stop();
}
const [a, b] = SIDES.map(s => join(out, `${s.name}.results.jsonl`));
const cmp = spawnSync(process.execPath, ['dist/cli.js', 'compare', a, b, '--json'], { cwd: ROOT, encoding: 'utf8' });
if (cmp.status !== 0 && !cmp.stdout) throw new Error(`art compare failed: ${cmp.stderr}`);
const c = JSON.parse(cmp.stdout);
console.log(`\n== art compare ${a} ${b}\n`);
console.log(table(c));
console.log(`\n== why the answers were wrong (counted from the traces)\n`);
for (const side of SIDES) console.log(explainFailures(join(out, `${side.name}.results.jsonl`), side.label));

function table(c) {
  const pct = x => `${(100 * x).toFixed(1)}%`;
  const side = (s, i) => {
    const name = SIDES[i].label;
    return `| ${name} | ${s.correct}/${s.n} = ${pct(s.accuracy)} | ${pct(s.interval[0])}–${pct(s.interval[1])} |`;
  };
  const header = JSON.parse(readFileSync(a, 'utf8').split('\n')[0]);
  return [
    `Model: ${header.model ?? LLAMA_MODEL} (Gemma 3 270M base, Q4_K_M) served by llama-server (llama.cpp build 11434), temperature 0.`,
    `Data: examples/data/word-problems.jsonl (${c.a.n} problems). Date: ${(header.date ?? started.toISOString()).slice(0, 10)}.`,
    '',
    '| library | exact accuracy | 95% Wilson interval |',
    '| --- | --- | --- |',
    side(c.a, 0),
    side(c.b, 1),
    '',
    `Difference (tools − CoT): ${pct(c.difference)} (95% interval ${pct(c.differenceInterval[0])} to ${pct(c.differenceInterval[1])}); ` +
      `fixed ${c.fixed.length}, broken ${c.broken.length}; McNemar's exact p = ${c.pValue.toPrecision(3)}.`,
  ].join('\n');
}
