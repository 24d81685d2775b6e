// `.art` parse + check throughput on a large library, and re-check latency after a one-line edit.
import { ArtIncremental, checkArt, parseArt } from '../core/art';
import { buildLibrary } from './library';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export function benchArt(): Record<string, string | number> {
  const big = buildLibrary(10 * 1024 * 1024);
  const mb = big.length / (1024 * 1024);
  // Warm up the JIT on a smaller library first, as an editor session would be warm.
  checkArt(parseArt(buildLibrary(1024 * 1024)));
  const runs: number[] = [];
  let diagnostics = 0;
  let programs = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 5; i++) {
    gc?.(); // the previous run's tree is garbage: collect it outside the timed region
    const t = performance.now();
    const doc = parseArt(big);
    diagnostics = checkArt(doc).length;
    runs.push(performance.now() - t);
    programs = doc.programs.length;
  }
  const wholeMs = median(runs);

  const oneMb = buildLibrary(1024 * 1024);
  const inc = new ArtIncremental();
  inc.update(oneMb);
  const anchor = oneMb.indexOf('Q2:', oneMb.length >> 1);
  const editTimes: number[] = [];
  let text = oneMb;
  for (let i = 0; i < 50; i++) {
    // Type into one line of a program in the middle of the file (the text grows by one character per edit).
    text = text.slice(0, anchor + 4) + 'x' + text.slice(anchor + 4);
    const t = performance.now();
    const r = inc.update(text);
    if (i >= 20) editTimes.push(performance.now() - t); // the first 20 edits warm the path up, as typing does
    if (r.reparsed > 2) throw new Error(`expected at most two programs re-parsed, got ${r.reparsed}`);
  }
  return {
    'art: library size (MB)': mb.toFixed(1),
    'art: programs': programs,
    'art: diagnostics': diagnostics,
    'art: parse+check whole file (ms, median of 5)': wholeMs.toFixed(0),
    'art: parse+check throughput (MB/s), target >= 20': (mb / (wholeMs / 1000)).toFixed(1),
    'art: re-check after one-line edit in 1 MB (ms, median of 30), target < 10': median(editTimes).toFixed(2),
    'art: re-check after one-line edit in 1 MB (ms, max of 30)': Math.max(...editTimes).toFixed(2),
  };
}
