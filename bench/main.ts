// `npm run bench`: every benchmark of the project, printed as one table (docs/performance.md records these figures).
// Pass area names to run some only: `npm run bench -- art lsp runner`. Run through scripts/bench.mjs, which
// bundles this file like the shipped code.
import { benchArt } from './art';
import { benchEval, serveEndpoint } from './eval';
import { benchLocal } from './local';
import { benchLsp } from './lsp';
import { benchModelLoad } from './modelLoad';
import { benchOtel } from './otel';
import { benchReplay } from './replay';
import { benchRunner } from './runner';
import { benchScale } from './scale';

type Bench = () => Promise<Record<string, string | number>> | Record<string, string | number>;

const areas: Record<string, Bench> = {
  art: benchArt,
  eval: benchEval,
  local: benchLocal,
  lsp: benchLsp,
  'model-load': benchModelLoad,
  otel: benchOtel,
  replay: benchReplay,
  runner: benchRunner,
  scale: benchScale,
};

async function main() {
  const wanted = process.argv.slice(2);
  const rows: [string, string | number][] = [];
  for (const [name, fn] of Object.entries(areas)) {
    if (wanted.length && !wanted.includes(name)) continue;
    const t = performance.now();
    const result = await fn();
    for (const [k, v] of Object.entries(result)) rows.push([k, v]);
    console.log(`${name}: done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\n${'measure'.padEnd(width)}  value`);
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
}

(process.argv[2] === '--endpoint' ? serveEndpoint(Number(process.argv[3])) : main()).catch(e => {
  console.error(e);
  process.exit(1);
});
