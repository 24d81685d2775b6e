// The agent's automaton drawn as SVG: one box per state (its name and prompt text, `:env-input` states dashed and
// shaded, final states double-bordered), an arrow per transition, a start dot. The layout is dagre's (layered, left
// to right); this module only sizes the boxes, hands the graph to dagre and draws what it returns. During a run the
// current state is highlighted, the states allowed next are marked, and a transition the decoding monitor corrected
// the model on is marked with what was corrected (correctedEdges computes which). Plain SVG text: no script, no
// remote resource.
import { graphlib, layout as dagreLayout } from '@dagrejs/dagre';
import { quoteShort } from '../common/text';
import type { AgentDef } from './ast';
import { automatonGraph, compileAgent, type AutomatonNode, type CompiledAgent } from './compile';
import { StreamMonitor, type MonitorCorrection, type MonitorEvent } from './monitor';

/** Monospace metrics the boxes are sized with (the SVG uses the same font size). */
const CHAR_W = 7.2;
const LINE_H = 16;
const PAD = 10;
const WRAP = 28;
const MAX_TEXT_LINES = 3;
export const START_ID = '__start';

export interface DiagramNodeInput {
  id: string;
  width: number;
  height: number;
  /** The lines drawn in the box: the state's name, then its prompt text wrapped. */
  lines: string[];
  node?: AutomatonNode;
}

/** What dagre is given: sized nodes (and the start dot) and the transitions. */
export interface DiagramInput {
  nodes: DiagramNodeInput[];
  edges: { from: string; to: string }[];
}

/** Wraps text at word boundaries to `width` characters, at most `max` lines (the last one ending in `…` if cut). */
export function wrapText(text: string, width = WRAP, max = MAX_TEXT_LINES): string[] {
  const words = text.replace(/\s+/g, ' ').trim().split(' ').filter(Boolean);
  const lines: string[] = [];
  let line = '';
  for (const w of words) {
    const word = w.length > width ? `${w.slice(0, width - 1)}…` : w;
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  if (lines.length > max) {
    const kept = lines.slice(0, max);
    kept[max - 1] = `${kept[max - 1].slice(0, width - 1)}…`;
    return kept;
  }
  return lines;
}

export function diagramInput(input: AgentDef | CompiledAgent): DiagramInput {
  const g = automatonGraph(input);
  const nodes: DiagramNodeInput[] = [{ id: START_ID, width: 14, height: 14, lines: [] }];
  for (const n of g.nodes) {
    const lines = [n.name, ...(n.text ? wrapText(n.text) : [])];
    const widest = Math.max(...lines.map(l => l.length));
    nodes.push({ id: n.id, width: Math.ceil(widest * CHAR_W + 2 * PAD), height: lines.length * LINE_H + 2 * PAD, lines, node: n });
  }
  const edges = [...g.nodes.filter(n => n.initial).map(n => ({ from: START_ID, to: n.id })), ...g.edges];
  return { nodes, edges };
}

export interface Point {
  x: number;
  y: number;
}

export interface DiagramLayout {
  width: number;
  height: number;
  /** Centre and size of each node. */
  nodes: (DiagramNodeInput & Point)[];
  edges: { from: string; to: string; points: Point[] }[];
}

/** Lays the graph out with dagre (left to right). */
export function layoutDiagram(input: DiagramInput): DiagramLayout {
  const g = new graphlib.Graph({ multigraph: false });
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 48, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of input.nodes) g.setNode(n.id, { width: n.width, height: n.height });
  for (const e of input.edges) g.setEdge(e.from, e.to);
  dagreLayout(g);
  const graph = g.graph();
  return {
    width: Math.ceil(graph.width ?? 0),
    height: Math.ceil(graph.height ?? 0),
    nodes: input.nodes.map(n => {
      const p = g.node(n.id);
      return { ...n, x: p.x, y: p.y };
    }),
    edges: input.edges.map(e => ({ ...e, points: (g.edge(e.from, e.to)?.points ?? []).map((p: Point) => ({ x: p.x, y: p.y })) })),
  };
}

/** Where a run stands in the automaton: the state it is in, the states allowed next, the transitions corrected. */
export interface DiagramHighlight {
  current: string | null;
  expected: string[];
  /** Transitions the decoding monitor corrected the model on (only when there are any). */
  corrections?: CorrectedEdge[];
}

/** The transition a correction made the run take: from a state (null: the start) to the state the corrected text entered. */
export interface CorrectedEdge {
  from: string | null;
  to: string;
  /** What was corrected, in a sentence (the edge's tooltip). */
  title: string;
}

/**
 * The edges the run took because the monitor corrected it. For each correction still in `transcript` (its inserted
 * text at its offset), the edge from the state the run was in there to the state the corrected text entered next;
 * while that state's prompt text is not complete yet, the edges to each state the correction allowed.
 */
export function correctedEdges(agent: CompiledAgent, transcript: string, corrections: readonly MonitorCorrection[]): CorrectedEdge[] {
  if (!corrections.length) return [];
  const m = new StreamMonitor(agent);
  const states = [...m.feed(transcript), ...m.end()].filter((e): e is Extract<MonitorEvent, { type: 'state' }> => e.type === 'state');
  const out: CorrectedEdge[] = [];
  const seen = new Set<string>();
  for (const c of corrections) {
    if (!c.inserted || !transcript.startsWith(c.inserted, c.offset)) continue;
    const from = [...states].reverse().find(e => e.end <= c.offset)?.state ?? null;
    const entered = states.find(e => e.offset >= c.offset && e.offset <= c.offset + c.inserted.length);
    const wrote = c.found !== null ? `the state ${c.found}` : c.removed.trim() ? quoteShort(c.removed, 40) : 'nothing more (it stopped early)';
    const title = `Monitor correction: after ${from ?? 'the start'} the model wrote ${wrote}; the spec allows ${c.expected.join(' or ')}, so ${quoteShort(c.inserted, 40)} was inserted`;
    for (const to of entered ? [entered.state] : c.expected) {
      const key = `${from}>${to}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ from, to, title });
    }
  }
  return out;
}

/**
 * The monitor's state after reading a transcript (the question line included, as runs write it), and the
 * transitions the run's monitor corrections made it take.
 */
export function highlightOf(agent: CompiledAgent, transcript: string, corrections: readonly MonitorCorrection[] = []): DiagramHighlight {
  const m = new StreamMonitor(agent);
  m.feed(transcript);
  const h: DiagramHighlight = { current: m.current, expected: m.expectedNext() };
  const edges = correctedEdges(agent, transcript, corrections);
  if (edges.length) h.corrections = edges;
  return h;
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const f = (n: number) => Math.round(n * 10) / 10;

/**
 * The diagram as an SVG element. Each state is a `<g class="state" data-state="NAME">` (a webview can make it
 * clickable); classes `env-input`, `final`, `undefined`, `current`, `expected` for styling.
 */
export function renderDiagramSvg(layout: DiagramLayout, highlight?: DiagramHighlight): string {
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="agent-diagram" width="${layout.width}" height="${layout.height}" viewBox="0 0 ${layout.width} ${layout.height}" font-family="monospace" font-size="12">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead"/></marker></defs>',
  ];
  const expected = new Set(highlight?.expected ?? []);
  const byId = new Map(layout.nodes.map(n => [n.id, n]));
  const labels: string[] = [];
  for (const e of layout.edges) {
    if (e.points.length < 2) continue;
    const to = byId.get(e.to)?.node?.name;
    const fromName = e.from === START_ID ? null : byId.get(e.from)?.node?.name;
    const corrected = highlight?.corrections?.filter(c => c.from === fromName && c.to === to) ?? [];
    const cls = [
      'transition',
      highlight?.current && fromName === highlight.current && to && expected.has(to) ? 'next' : '',
      corrected.length ? 'corrected' : '',
    ]
      .filter(Boolean)
      .join(' ');
    const d = e.points.map((p, i) => `${i ? 'L' : 'M'} ${f(p.x)} ${f(p.y)}`).join(' ');
    if (!corrected.length) {
      out.push(`<path class="${cls}" d="${d}" fill="none" marker-end="url(#arrow)"/>`);
      continue;
    }
    // A corrected transition: marked, with what was corrected as its tooltip and a label at its middle.
    const title = esc(corrected.map(c => c.title).join('\n'));
    const data = `data-from="${esc(fromName ?? '')}" data-to="${esc(to ?? '')}"`;
    out.push(`<path class="${cls}" ${data} d="${d}" fill="none" marker-end="url(#arrow)"><title>${title}</title></path>`);
    const mid = e.points[Math.floor(e.points.length / 2)];
    labels.push(
      `<text class="correction-label" ${data} x="${f(mid.x)}" y="${f(mid.y - 4)}" text-anchor="middle"><title>${title}</title>corrected</text>`,
    );
  }
  // Labels over the edges, under the states.
  out.push(...labels);
  for (const n of layout.nodes) {
    if (!n.node) {
      out.push(`<circle class="start" cx="${f(n.x)}" cy="${f(n.y)}" r="${n.width / 2}"/>`);
      continue;
    }
    const s = n.node;
    const cls = [
      'state',
      s.envInput ? 'env-input' : '',
      s.final ? 'final' : '',
      s.defined ? '' : 'undefined',
      highlight?.current === s.name ? 'current' : '',
      expected.has(s.name) ? 'expected' : '',
    ]
      .filter(Boolean)
      .join(' ');
    const x = n.x - n.width / 2;
    const y = n.y - n.height / 2;
    const title = `${s.name}${s.envInput ? ' (:env-input)' : ''}${s.text ? `\n${s.text}` : ''}`;
    out.push(`<g class="${cls}" data-state="${esc(s.name)}" tabindex="0" role="button"><title>${esc(title)}</title>`);
    out.push(`<rect x="${f(x)}" y="${f(y)}" width="${n.width}" height="${n.height}" rx="6"/>`);
    if (s.final) out.push(`<rect class="final-ring" x="${f(x + 3)}" y="${f(y + 3)}" width="${n.width - 6}" height="${n.height - 6}" rx="4"/>`);
    n.lines.forEach((line, i) => {
      out.push(`<text x="${f(x + PAD)}" y="${f(y + PAD + (i + 0.8) * LINE_H)}"${i === 0 ? ' class="name"' : ''}>${esc(line)}</text>`);
    });
    out.push('</g>');
  }
  out.push('</svg>');
  return out.join('\n');
}

/** Compiles, lays out and draws an agent in one go. */
export function agentDiagramSvg(agent: AgentDef | CompiledAgent, highlight?: DiagramHighlight): string {
  const c = 'positions' in agent ? agent : compileAgent(agent);
  return renderDiagramSvg(layoutDiagram(diagramInput(c)), highlight);
}
