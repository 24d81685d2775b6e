// A run trace (JSONL records, core/trace/trace.ts) as a tree for the "ART Trace" view: the run, each request with
// its streamed chunks and completion, each tool call with its input, output, override, error and duration, the
// monitor's corrections, pauses, edits, retries, and the end with the token counts. Plain data (no `vscode`), so
// it is tested without VS Code; client/views/traceView.ts shows it.
import { describeWhy } from '../../core/prompt/promptReport';
import type { ToolCall } from '../../core/trace/vocabulary';
import type { TraceRecord } from '../../core/trace/schema';
import { plural, tokenUsage } from '../../core/common/counts';

export interface TraceNode {
  label: string;
  description?: string;
  /** Full text shown on hover (long prompts, outputs). */
  tooltip?: string;
  /** A codicon name. */
  icon?: string;
  children?: TraceNode[];
}

const MAX_LABEL = 80;

/** One line, shortened: what a tree row can show. */
export function oneLine(text: string, max = MAX_LABEL): string {
  const flat = text.replace(/\r?\n/g, '⏎').replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const leaf = (label: string, value: string, icon?: string): TraceNode => ({ label, description: oneLine(value), tooltip: value, icon });

export function traceTree(records: readonly TraceRecord[]): TraceNode[] {
  const out: TraceNode[] = [];
  const requests = new Map<number, TraceNode & { children: TraceNode[]; chunks: TraceNode[] }>();
  const t0 = records[0]?.at ?? 0;
  const when = (at: number) => `+${((at - t0) / 1000).toFixed(3)} s`;

  for (const r of records) {
    switch (r.t) {
      case 'run':
        out.push({
          label: `Run (${r.kind})${r.sample ? ` · sample ${r.sample.index} of ${r.sample.of}` : ''}`,
          description: `${r.model}${r.honoursStop ? '' : ' · stops by abort'}`,
          icon: 'debug-start',
          children: [
            leaf('prompt', r.prompt),
            leaf('task', r.header),
            ...(r.demonstrations
              ? [
                  {
                    label: 'demonstrations',
                    description: String(r.demonstrations.length),
                    children: r.demonstrations.map(d => leaf(d.title, describeWhy(d.why))),
                  },
                ]
              : []),
            ...Object.entries(r.options)
              .filter(([, v]) => v !== undefined)
              .map(([k, v]) => leaf(k, String(v))),
          ],
        });
        break;
      case 'request': {
        const node = {
          label: `Request ${r.n}`,
          description: `${when(r.at)} · prompt ${r.prompt.length} chars${r.stop.length ? ` · stop ${r.stop.map(s => JSON.stringify(s)).join(' ')}` : ' · no stop sequences'}`,
          tooltip: r.prompt.slice(-2000),
          icon: 'arrow-right',
          children: [] as TraceNode[],
          chunks: [] as TraceNode[],
        };
        node.children.push({ label: 'chunks', description: '0', icon: 'list-flat', children: node.chunks });
        requests.set(r.n, node);
        out.push(node);
        break;
      }
      case 'chunk': {
        const q = requests.get(r.n);
        if (!q) break;
        q.chunks.push({ label: oneLine(JSON.stringify(r.text)), tooltip: r.text, description: when(r.at) });
        q.children[0].description = String(q.chunks.length);
        break;
      }
      case 'completion': {
        const q = requests.get(r.n);
        const facts = [
          r.finishReason ? `finish: ${r.finishReason}` : undefined,
          r.aborted ? 'aborted' : undefined,
          r.usage ? `${r.usage.promptTokens} + ${r.usage.completionTokens} tokens` : undefined,
        ].filter(Boolean);
        const node: TraceNode = {
          label: 'completion',
          description: `${facts.join(' · ')}${facts.length ? ' · ' : ''}${oneLine(r.text, 60)}`,
          tooltip: r.text,
          icon: 'output',
        };
        const children: TraceNode[] = [leaf('text', r.text)];
        if (r.dropped) children.push(leaf('dropped past the stop', r.dropped, 'scissors'));
        node.children = children;
        if (q) q.children.push(node);
        else out.push(node);
        break;
      }
      case 'tool':
        out.push(toolNode(r.call, when(r.at)));
        break;
      case 'correction':
        out.push({
          label: 'Monitor correction',
          description: `at offset ${r.offset}: found ${r.found ?? 'no state'}, expected ${r.expected.join(' or ')}`,
          icon: 'warning',
          children: [leaf('removed', r.removed), leaf('inserted', r.inserted), leaf('expected', r.expected.join(', '))],
        });
        break;
      case 'pause':
        out.push({
          label: `Paused: ${r.reason}`,
          description: `${when(r.at)}${r.callId !== undefined ? ` · call #${r.callId}` : ''}`,
          icon: 'debug-pause',
        });
        break;
      case 'edit':
        out.push({
          label: `Edit: ${r.what} of call #${r.callId}`,
          description: r.text !== undefined ? oneLine(r.text) : '',
          tooltip: r.text,
          icon: 'edit',
        });
        break;
      case 'retry':
        out.push({ label: `Retry ${r.attempt}`, description: `after ${r.delayMs} ms: ${r.reason}`, icon: 'sync' });
        break;
      case 'end':
        out.push({
          label: `End: ${r.reason}`,
          description: `${r.answer !== null ? `answer ${oneLine(r.answer, 40)} · ` : ''}${tokenUsage(r.usage)} · ${plural(r.requests, 'request')}`,
          icon: r.reason === 'finished' ? 'pass' : 'error',
          children: [
            ...(r.error ? [leaf('error', r.error, 'error')] : []),
            ...(r.answer !== null ? [leaf('answer', r.answer)] : []),
            leaf('program', r.text),
            leaf('prompt tokens', String(r.usage.promptTokens)),
            leaf('completion tokens', String(r.usage.completionTokens)),
            leaf('requests', String(r.requests)),
          ],
        });
        break;
      case 'vote':
        out.push({
          label: `Vote: ${r.answer ?? '(no answer)'}`,
          description: `${r.agree} of ${r.of} samples`,
          icon: 'checklist',
          children: r.samples.map(s => leaf(`sample ${s.index}`, s.reason === 'finished' ? (s.answer ?? '(no answer)') : `(${s.reason})`)),
        });
        break;
    }
  }
  return out;
}

function toolNode(c: ToolCall, when: string): TraceNode {
  const facts = [
    c.durationMs !== undefined ? `${c.durationMs} ms` : undefined,
    c.override !== undefined ? 'overridden' : undefined,
    c.error !== undefined ? (c.timedOut ? 'timed out' : 'error') : undefined,
    c.skipped ? 'skipped' : undefined,
    c.fallback ? 'model wrote the output' : undefined,
    c.inputEdited ? 'input edited' : undefined,
  ].filter(Boolean);
  const children: TraceNode[] = [leaf('input', c.input)];
  if (c.previousAnswer !== undefined) children.push(leaf('previous answer', c.previousAnswer));
  if (c.output !== undefined) children.push(leaf('output', c.output));
  if (c.override !== undefined) children.push(leaf('override', c.override, 'edit'));
  if (c.error !== undefined) children.push(leaf('error', c.error, 'error'));
  if (c.durationMs !== undefined) children.push(leaf('duration', `${c.durationMs} ms`));
  if (c.appended !== undefined) children.push(leaf('appended', c.appended));
  return {
    label: `Tool call #${c.id} [${c.tool}]`,
    description: `${when}${facts.length ? ` · ${facts.join(' · ')}` : ''}`,
    icon: c.error !== undefined ? 'error' : 'tools',
    children,
  };
}
