// The page of the comparison of two evaluations (bundled for the browser into dist/compareView.js): draws the report
// core made (core/evaluation/report.ts comparisonReport) as text: both headers, the accuracies with their intervals,
// the difference, the p-value in plain words, and the fixed and broken examples, each with links the extension
// follows (its two runs side by side, or either replayed in the debugger).
import type { ComparisonReport } from '../../core/evaluation/report';
import type { ChangedExample } from '../../core/evaluation/compare';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const points = (x: number) => `${x >= 0 ? '+' : '−'}${(100 * Math.abs(x)).toFixed(1)}`;

function link(text: string, title: string, message: Record<string, unknown>): HTMLAnchorElement {
  const a = el('a', text);
  a.href = '#';
  a.title = title;
  a.addEventListener('click', e => {
    e.preventDefault();
    vscode.postMessage(message);
  });
  return a;
}

function answer(a: string | null, end: string): string {
  return a !== null ? a : end === 'finished' ? '— (no answer read)' : `— (${end})`;
}

function table(examples: ChangedExample[]): HTMLElement {
  if (!examples.length) return el('div', 'none');
  const t = el('table');
  const head = el('tr');
  for (const h of ['example', 'input', 'target', 'answer in A', 'answer in B', 'runs']) head.append(el('th', h));
  t.append(head);
  for (const e of examples) {
    const tr = el('tr');
    tr.dataset.id = e.id;
    const runs = el('td');
    if (e.traceA && e.traceB) runs.append(link('diff', 'Open its two runs side by side', { type: 'diff', id: e.id }));
    if (e.traceA) runs.append(link('replay A', "Replay A's run in the debugger", { type: 'replay', id: e.id, side: 'a' }));
    if (e.traceB) runs.append(link('replay B', "Replay B's run in the debugger", { type: 'replay', id: e.id, side: 'b' }));
    tr.append(
      el('td', e.id),
      el('td', e.input, 'input'),
      el('td', e.target),
      el('td', answer(e.answerA, e.endA)),
      el('td', answer(e.answerB, e.endB)),
      runs,
    );
    t.append(tr);
  }
  return t;
}

function draw(r: ComparisonReport): void {
  document.getElementById('title')!.textContent = `${r.names[0]} → ${r.names[1]}`;
  const content = document.getElementById('content')!;
  const side = (label: string, name: string, header: string, s: ComparisonReport['a']) => [
    el('div', `${label}: ${s.correct}/${s.n} = ${pct(s.accuracy)} (95% CI ${pct(s.interval[0])}–${pct(s.interval[1])})  ${name}`, 'big'),
    el('div', header, 'header'),
  ];
  const [lo, hi] = r.differenceInterval;
  const diff = el(
    'div',
    `Difference B − A: ${points(r.difference)} points (95% CI ${points(lo)} to ${points(hi)}) · ${r.fixed.length} fixed, ${r.broken.length} broken`,
    `big ${r.difference > 0 ? 'gain' : r.difference < 0 ? 'loss' : ''}`,
  );
  const parts: HTMLElement[] = [
    ...side('A', r.names[0], r.headers[0], r.a),
    ...side('B', r.names[1], r.headers[1], r.b),
    diff,
    el('div', `Is it more than noise? ${r.pWords}.`),
    el(
      'div',
      `${r.metric} match on the ${r.a.n} examples both have; right in both ${r.bothRight}, wrong in both ${r.bothWrong}` +
        (r.onlyA || r.onlyB ? `; not compared: ${r.onlyA} only in A, ${r.onlyB} only in B` : ''),
    ),
  ];
  if (r.differences.length) parts.push(el('div', `The two differ in more than the library: ${r.differences.join('; ')}`, 'warning'));
  else if (r.libraryChanged === false) parts.push(el('div', 'The library is the same in both.', 'warning'));
  parts.push(el('h2', `Fixed (wrong in A, right in B): ${r.fixed.length}`), table(r.fixed));
  parts.push(el('h2', `Broken (right in A, wrong in B): ${r.broken.length}`), table(r.broken));
  content.replaceChildren(...parts);
  vscode.postMessage({ type: 'drawn', fixed: r.fixed.length, broken: r.broken.length, p: r.p });
}

window.addEventListener('message', (e: MessageEvent<{ type?: string; report?: ComparisonReport }>) => {
  if (e.data?.type === 'comparison' && e.data.report) draw(e.data.report);
});
vscode.postMessage({ type: 'ready' });
