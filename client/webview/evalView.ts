// The page of the evaluation results view (bundled for the browser into dist/evalView.js, loaded only in the
// webview): draws the accuracy per task with Chart.js (exact and substring match, in percent), the summary and the
// table of examples from the report core made (core/evaluation/report.ts). All text goes in as text (no HTML from
// the data); a click on an example's link asks the extension to replay its run in the debugger.
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from 'chart.js';
import type { EvalReport, EvalReportRow } from '../../core/evaluation/report';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
let chart: Chart | undefined;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/** A theme colour of the workbench (CSS variable), with a fallback outside VS Code. */
function themeColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/** A task's label on the chart's axis: long descriptions cut to a readable length. */
const short = (s: string) => (s.length > 40 ? `${s.slice(0, 39)}…` : s);

function drawChart(report: EvalReport): void {
  const canvas = document.getElementById('chart') as HTMLCanvasElement;
  const fg = themeColor('--vscode-foreground', '#333');
  const grid = themeColor('--vscode-editorWidget-border', 'rgba(128,128,128,0.3)');
  Chart.defaults.color = fg;
  chart?.destroy();
  chart = new Chart(canvas, {
    type: 'bar',
    data: {
      labels: report.tasks.map(t => short(t.task)),
      datasets: [
        { label: 'exact match (%)', data: report.tasks.map(t => t.exactPercent), backgroundColor: themeColor('--vscode-charts-blue', '#3794ff') },
        {
          label: 'substring match (%)',
          data: report.tasks.map(t => t.substringPercent),
          backgroundColor: themeColor('--vscode-charts-green', '#89d185'),
        },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        y: { min: 0, max: 100, title: { display: true, text: 'accuracy (%)' }, grid: { color: grid } },
        x: { grid: { color: grid } },
      },
      plugins: {
        tooltip: {
          callbacks: {
            title: items => report.tasks[items[0].dataIndex].task,
            afterLabel: item => {
              const t = report.tasks[item.dataIndex];
              const [lo, hi] = item.datasetIndex === 0 ? t.exactInterval : t.substringInterval;
              const k = item.datasetIndex === 0 ? t.exact : t.substring;
              return `${k}/${t.n} examples, 95% CI ${lo}–${hi}%`;
            },
          },
        },
      },
    },
  });
}

function mark(ok: boolean): HTMLTableCellElement {
  const td = el('td', ok ? '✓' : '✗', ok ? 'ok' : 'wrong');
  td.title = ok ? 'match' : 'no match';
  return td;
}

function row(r: EvalReportRow): HTMLTableRowElement {
  const tr = el('tr');
  tr.dataset.id = r.id;
  const id = el('td');
  if (r.trace) {
    const a = el('a', r.id, 'replay');
    a.href = '#';
    a.title = 'Replay this run in the debugger, from its trace';
    a.addEventListener('click', e => {
      e.preventDefault();
      vscode.postMessage({ type: 'replay', id: r.id });
    });
    id.append(a);
  } else id.textContent = r.id;
  tr.append(
    id,
    el('td', r.input, 'input'),
    el('td', r.answer ?? '—', r.answer === null ? 'none' : undefined),
    el('td', r.target),
    mark(r.exact),
    mark(r.substring),
    el('td', r.error ?? (r.end === 'finished' ? '' : r.end), 'error'),
  );
  return tr;
}

function draw(report: EvalReport): void {
  document.getElementById('title')!.textContent = `${report.library} on ${report.data}`;
  const state = report.running
    ? ` (running: process ${report.running.pid} is writing the results; this view follows them)`
    : report.stopped
      ? ' (stopped: run "ART: Evaluate Task" again to resume)'
      : '';
  const status = `${report.rows.length} of ${report.total} examples${state} · results in ${report.results}`;
  document.getElementById('status')!.textContent = status;
  const summary = document.getElementById('summary')!;
  summary.replaceChildren(...report.summaryLines.map(l => el('div', l)));
  drawChart(report);
  const body = document.querySelector('#examples tbody')!;
  body.replaceChildren(...report.rows.map(row));
  // Said to the extension once drawn (its tests wait for it).
  vscode.postMessage({ type: 'drawn', tasks: report.tasks.length, rows: report.rows.length, chart: !!chart?.getDatasetMeta(0).data.length });
}

/** The Compare button: with the previous evaluation when this one was run after it (one click), else a choice. */
function compareButton(previous: string | undefined): void {
  const button = document.getElementById('compare')!;
  button.textContent = previous ? `Compare with the previous evaluation (${previous})` : 'Compare with…';
  button.title = previous
    ? `The examples this evaluation fixed and broke against ${previous}`
    : 'Compare this evaluation with another of the same data: the examples fixed and broken';
}

window.addEventListener('message', (e: MessageEvent<{ type?: string; report?: EvalReport; previous?: string }>) => {
  if (e.data?.type !== 'report' || !e.data.report) return;
  compareButton(e.data.previous);
  draw(e.data.report);
});
document.getElementById('compare')?.addEventListener('click', () => vscode.postMessage({ type: 'compare' }));
vscode.postMessage({ type: 'ready' });
