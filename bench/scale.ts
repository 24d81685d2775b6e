// Performance at scale (issue 13), each figure printed against its target:
//   - `art check --json` as a whole process (spawn → exit, output to /dev/null) on 1, 10 and 50 MB, with the
//     process's peak memory (the CLI refuses files over 100 MB, so 200 MB is measured in process only);
//   - parse+check in process and the memory the tree keeps, on 1, 10, 50 and 200 MB (it must grow linearly);
//   - the language server over stdio on a large library (`ART_BENCH_LSP_MB`, default 50): first diagnostics, then
//     every request an editor sends on open, each timed, and how long a hover on another document waited
//     meanwhile (the longest wait of any request behind another), and the server's peak memory.
// `npm run bench -- scale` (sizes: ART_BENCH_SCALE_MB=1,10,50,200).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkArt, parseArt } from '../core/art';
import { LspClient, ROOT, fileUri } from '../test/support/bench';
import { buildLibrary } from './library';

const MB = 1024 * 1024;
const round = (x: number, d = 0) => Number(x.toFixed(d));
const gc = () => (globalThis as { gc?: () => void }).gc?.();

/** Peak resident memory of a child node process, read from a --require hook at its exit. */
function runCli(file: string, hook: string, out: string): { ms: number; peakMb: number } {
  const t = performance.now();
  const r = spawnSync(process.execPath, ['--require', hook, join(ROOT, 'dist/cli.js'), 'check', '--json', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ART_BENCH_RSS_OUT: out },
    encoding: 'utf8',
  });
  const ms = performance.now() - t;
  if (r.status !== 0 && r.status !== 1) throw new Error(`art check failed (${r.status}): ${r.stderr}`);
  return { ms, peakMb: Number(readFileSync(out, 'utf8')) / 1024 };
}

/** Peak resident memory (VmHWM) of a running process, in MB, or NaN where /proc is not there. */
function peakRssMb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export async function benchScale(): Promise<Record<string, string | number>> {
  const rows: Record<string, string | number> = {};
  const sizes = (process.env.ART_BENCH_SCALE_MB ?? '1,10,50,200').split(',').filter(Boolean).map(Number);
  const dir = mkdtempSync(join(tmpdir(), 'art-bench-'));
  try {
    const hook = join(dir, 'rss-hook.js');
    writeFileSync(
      hook,
      "process.on('exit', () => require('fs').writeFileSync(process.env.ART_BENCH_RSS_OUT, String(process.resourceUsage().maxRSS)));\n",
    );
    const out = join(dir, 'rss');
    for (const size of sizes) {
      let text: string | null = buildLibrary(size * MB);
      const mb = text.length / MB;
      if (text.length <= 100 * MB) {
        const file = join(dir, `lib-${size}.art`);
        writeFileSync(file, text);
        runCli(file, hook, out); // warm the file cache
        const runs = [0, 1, 2].map(() => runCli(file, hook, out)).sort((a, b) => a.ms - b.ms);
        const best = runs[0];
        const tag = `cli check --json ${size} MB (process)`;
        rows[`${tag}: ms (best of 3)`] = round(best.ms);
        rows[`${tag}: MB/s${size === 10 ? ', target >= 20' : ''}`] = round(mb / (best.ms / 1000), 1);
        rows[`${tag}: peak RSS MB`] = round(best.peakMb);
        rmSync(file);
      }
      gc();
      const before = process.memoryUsage().heapUsed;
      const t = performance.now();
      let doc: ReturnType<typeof parseArt> | null = parseArt(text);
      const diagnostics = checkArt(doc).length;
      const ms = performance.now() - t;
      gc();
      const kept = (process.memoryUsage().heapUsed - before) / MB;
      const tag = `parse+check ${size} MB (in process)`;
      rows[`${tag}: ms`] = round(ms);
      rows[`${tag}: MB/s`] = round(mb / (ms / 1000), 1);
      rows[`${tag}: heap kept by the tree (text excluded) MB`] = round(kept);
      rows[`${tag}: programs / diagnostics`] = `${doc.programs.length} / ${diagnostics}`;
      doc = null;
      text = null;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  // ART_BENCH_LSP_MB: the library sizes for the language server, e.g. `1,10,50,200` (default 50).
  for (const size of (process.env.ART_BENCH_LSP_MB ?? '50').split(',').filter(Boolean).map(Number)) Object.assign(rows, await benchLspAtScale(size));
  return rows;
}

/**
 * Loaded into the server with --require: records every stretch of more than 20 ms in which its event loop did not
 * turn (a 2 ms interval did not run), with the CPU time the process used meanwhile, and writes them at exit. The
 * wall time of a stall includes time the process waited for a core on a loaded machine; its CPU time does not (but
 * counts V8's helper threads too). A hover's wait measured by the client also includes the client's own reading of
 * large answers; a stall is the server's part only.
 */
const STALL_PROBE = `
let last = performance.now(), lastCpu = process.cpuUsage();
const stalls = [];
setInterval(() => {
  const now = performance.now();
  if (now - last > 20) { const c = process.cpuUsage(lastCpu); stalls.push({ at: Date.now(), wall: now - last, cpu: (c.user + c.system) / 1000 }); }
  last = now;
  lastCpu = process.cpuUsage();
}, 2).unref();
process.on('exit', () => require('fs').writeFileSync(process.env.ART_BENCH_STALLS_OUT, JSON.stringify(stalls)));
`;

interface Stall {
  at: number;
  wall: number;
  cpu: number;
}

async function benchLspAtScale(size: number): Promise<Record<string, string | number>> {
  const text = buildLibrary(size * MB);
  const rows: Record<string, string | number> = {};
  const tag = `lsp ${size} MB`;
  const dir = mkdtempSync(join(tmpdir(), 'art-bench-lsp-'));
  const probe = join(dir, 'stalls.js');
  writeFileSync(probe, STALL_PROBE);
  process.env.ART_BENCH_STALLS_OUT = join(dir, 'stalls.json');
  // ART_BENCH_SERVER_ARGS: more node options for the server, to profile it (`--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = ['--require', probe, ...(process.env.ART_BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean)];
  const client = await LspClient.start({ settings: { diagnostics: { debounceMs: 0 } }, nodeArgs });
  /** Each phase's name and its start and end (Date.now()), to attribute the server's stalls to it. */
  const phases: [string, number, number][] = [];
  /** The server's peak RSS (VmHWM) at the end of each phase: which phase set the peak. */
  const peaks: [string, number][] = [];
  try {
    const small = fileUri(join(ROOT, 'bench-small.art'));
    await client.open(small, 'Input: x\nQ1: [search] y\n#1: z\nQ2: [EOQ]\nAns: z\n');
    const uri = fileUri(join(ROOT, `bench-${size}mb.art`));

    /** Runs `work` while hovering on the small document every 10 ms; returns its time and the longest hover. */
    const whileHovering = async <T>(name: string, work: () => Promise<T>): Promise<{ ms: number; longestWait: number; result: T }> => {
      let done = false;
      const t = performance.now();
      const phase: [string, number, number] = [name, Date.now(), Infinity];
      phases.push(phase);
      const p = work().finally(() => (done = true));
      let longestWait = 0;
      while (!done) {
        await new Promise(r => setTimeout(r, 10));
        const h = performance.now();
        await client.request('textDocument/hover', { textDocument: { uri: small }, position: { line: 1, character: 6 } });
        longestWait = Math.max(longestWait, performance.now() - h);
      }
      const result = await p;
      phase[2] = Date.now();
      peaks.push([name, peakRssMb(client.process.pid!)]);
      return { ms: performance.now() - t, longestWait, result };
    };
    let worstWait = 0;
    const open = await whileHovering('open', () => client.open(uri, text, 'art', 1, 300_000));
    worstWait = Math.max(worstWait, open.longestWait);
    rows[`${tag}: open → first diagnostics ms, target < 5000`] = round(open.ms);
    rows[`${tag}: diagnostics published`] = open.result.diagnostics.length;
    // A hover sent while the document is on its way waits behind it in the pipe: the server reads it only after the
    // whole didOpen message (50 MB of JSON at 50 MB), then answers it between the analysis' steps.
    rows[`${tag}: open: longest hover wait meanwhile ms, target < 50`] = round(open.longestWait);

    const lines = text.split('\n');
    const line = lines.findIndex((l, i) => i > lines.length / 2 && /^Q\d+: \[/.test(l));
    const position = { line, character: 5 };
    const td = { textDocument: { uri } };
    const requests: [string, string, unknown, number][] = [
      ['documentSymbol', 'textDocument/documentSymbol', td, 1000],
      ['foldingRange', 'textDocument/foldingRange', td, 500],
      ['semanticTokens/full', 'textDocument/semanticTokens/full', td, 500],
      ['art/programs', 'art/programs', td, 500],
      ['hover', 'textDocument/hover', { ...td, position }, 500],
    ];
    for (const [name, method, params, target] of requests) {
      const r = await whileHovering(name, () => client.request<unknown>(method, params));
      worstWait = Math.max(worstWait, r.longestWait);
      rows[`${tag}: ${name} ms, target < ${target}`] = round(r.ms);
      rows[`${tag}: ${name}: longest hover wait meanwhile ms, target < 50`] = round(r.longestWait);
      // The client's own reading of the answer, which the hover answered after it waits for (the same JSON parsed again).
      const json = JSON.stringify(r.result);
      const t = performance.now();
      JSON.parse(json);
      rows[`${tag}: ${name}: the client's JSON.parse of the answer (${round(json.length / MB, 1)} MB) ms`] = round(performance.now() - t);
    }
    // An edit in the middle (a character typed into an instruction): the time to its diagnostics, a hover meanwhile.
    const edit = await whileHovering('edit', () => client.change(uri, 2, [{ range: { start: position, end: position }, text: 'x' }], 60_000));
    worstWait = Math.max(worstWait, edit.longestWait);
    rows[`${tag}: an edit in the middle → its diagnostics ms`] = round(edit.ms);
    rows[`${tag}: edit: longest hover wait meanwhile ms, target < 50`] = round(edit.longestWait);
    rows[`${tag}: longest wait of a request behind another ms, target < 50`] = round(worstWait);
    const peak = peakRssMb(client.process.pid!);
    rows[`${tag}: server peak RSS MB, target <= 8x file = ${round(8 * (Buffer.byteLength(text) / MB))}`] = round(peak);
    rows[`${tag}: server peak RSS / file size`] = round(peak / (Buffer.byteLength(text) / MB), 1);
    rows[`${tag}: server peak RSS MB after each phase`] = peaks.map(([name, mb]) => `${name} ${round(mb)}`).join(', ');
  } finally {
    await client.stop();
  }
  let stalls: Stall[] = [];
  try {
    stalls = JSON.parse(readFileSync(process.env.ART_BENCH_STALLS_OUT, 'utf8')) as Stall[];
  } catch {
    rows[`${tag}: server stalls`] = 'not recorded (the server did not exit cleanly)';
  }
  rmSync(dir, { recursive: true, force: true });
  for (const [name, start, end] of phases) {
    const during = stalls.filter(s => s.at >= start && s.at <= end + 20);
    const worst = during.reduce<Stall | null>((w, s) => (!w || s.wall > w.wall ? s : w), null);
    rows[`${tag}: ${name}: longest server stall ms wall / CPU, target < 50`] = worst ? `${round(worst.wall)} / ${round(worst.cpu)}` : '< 20';
  }
  return rows;
}
