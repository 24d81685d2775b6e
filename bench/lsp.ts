// Language server latency over stdio, against the real built server (dist/server.js):
//   - server ready: spawn → initialize result (target < 500 ms), median of 3 starts;
//   - keystroke → diagnostics: in an open 5 MB library, change one line and time until publishDiagnostics for
//     that version arrives (target < 50 ms at the median), 20 edits, debounce set to 0 for the measurement;
//   - opening the 5 MB library: time to its first diagnostics, and how long a hover on another document waits
//     meanwhile (the large first parse runs in chunks, so the server keeps answering).
import { join } from 'node:path';
import { LspClient, ROOT, fileUri } from '../test/support/bench';
import { buildLibrary } from './library';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];
const ms = (x: number) => Math.round(x * 10) / 10;

export async function benchLsp(): Promise<Record<string, string | number>> {
  const ready: number[] = [];
  for (let i = 0; i < 3; i++) {
    const c = await LspClient.start({ settings: { diagnostics: { debounceMs: 0 } } });
    ready.push(c.readyMs);
    await c.stop();
  }

  const text = buildLibrary(5 * 1024 * 1024);
  const client = await LspClient.start({ settings: { diagnostics: { debounceMs: 0 } } });
  try {
    const small = fileUri(join(ROOT, 'bench-small.art'));
    await client.open(small, 'Input: x\nQ1: [search] y\n#1: z\nQ2: [EOQ]\nAns: z\n');

    const uri = fileUri(join(ROOT, 'bench-5mb.art'));
    const t0 = performance.now();
    let done = false;
    const opened = client.open(uri, text, 'art', 1, 120_000).finally(() => (done = true));
    // Hovers on the small document every 20 ms while the large one is analysed: the longest wait is how long
    // the server was blocked at once.
    const hoverWaits: number[] = [];
    while (!done) {
      await new Promise(r => setTimeout(r, 20));
      const h0 = performance.now();
      await client.request('textDocument/hover', { textDocument: { uri: small }, position: { line: 1, character: 6 } });
      hoverWaits.push(performance.now() - h0);
    }
    const first = await opened;
    const openMs = performance.now() - t0;

    // Edit the Input line of programs spread over the file: a real one-line change each time.
    const lines = text.split('\n');
    const inputLines: number[] = [];
    lines.forEach((l, i) => l.startsWith('Input:') && inputLines.push(i));
    const latencies: number[] = [];
    let version = 1;
    for (let k = 0; k < 20; k++) {
      const line = inputLines[Math.floor(((k + 0.5) / 20) * inputLines.length)];
      const character = lines[line].length;
      version++;
      const t = performance.now();
      const p = await client.change(uri, version, [{ range: { start: { line, character }, end: { line, character } }, text: ` edit${k}` }], 60_000);
      latencies.push(performance.now() - t);
      if (p.version !== version) throw new Error('diagnostics for the wrong version');
    }
    return {
      'lsp server ready (spawn → initialize), median ms': ms(median(ready)),
      'lsp library size MB': ms(text.length / (1024 * 1024)),
      'lsp open 5 MB → first diagnostics ms': ms(openMs),
      'lsp longest hover wait while opening 5 MB, ms': ms(Math.max(0, ...hoverWaits)),
      'lsp diagnostics on open (count)': first.diagnostics.length,
      'lsp keystroke → diagnostics, median ms (5 MB)': ms(median(latencies)),
      'lsp keystroke → diagnostics, p90 ms (5 MB)': ms(percentile(latencies, 0.9)),
    };
  } finally {
    await client.stop();
  }
}
