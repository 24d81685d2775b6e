// "ART: Show Agent Diagram": the automaton of the agent under the cursor beside its spec, in a webview. Core lays it
// out and draws it (core/agent/diagram.ts); this file only shows the SVG, redraws it as the spec is edited, opens a
// state's definition when it is clicked, and, while an `art` debug session of that spec is stopped, highlights the
// state the run is in, the states allowed next and the transitions the decoding monitor corrected the run on (read
// with the adapter's `art/state` request at each `stopped`; core/agent/diagram.ts computes which edges).
// The webview loads nothing: a strict CSP, one nonce'd style and script, no remote resource.
import * as vscode from 'vscode';
import { webviewPage } from './webviewPage';
import { compileAgent, type CompiledAgent } from '../../core/agent/compile';
import { agentDiagramSvg, highlightOf, type DiagramHighlight } from '../../core/agent/diagram';
import { parseAgentFile } from '../../core/agent/parse';
import type { AgentDef } from '../../core/agent/ast';
import { DEBUG_TYPE, StateRequest } from '../debugAdapter/protocol';

export const SHOW_DIAGRAM_COMMAND = 'art.showAgentDiagram';
export const DIAGRAM_VIEW_TYPE = 'art.agentDiagram';

interface Shown {
  panel: vscode.WebviewPanel;
  uri: vscode.Uri;
  /** The agent shown, by name (kept across edits), else its index in the file. */
  name: string;
  index: number;
  agent?: AgentDef;
  compiled?: CompiledAgent;
  highlight?: DiagramHighlight;
  /** The SVG last sent (for the tests). */
  svg: string;
}

function agentAt(agents: AgentDef[], offset: number): number {
  const i = agents.findIndex(a => a.span.start <= offset && offset <= a.span.end);
  return i >= 0 ? i : 0;
}

export class AgentDiagrams implements vscode.Disposable {
  private readonly shown = new Map<string, Shown>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly log: vscode.LogOutputChannel) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeTextDocument(e => {
        const key = e.document.uri.toString();
        if (!this.shown.has(key)) return;
        clearTimeout(this.timers.get(key));
        this.timers.set(
          key,
          setTimeout(() => this.redraw(key, e.document.getText()), 200),
        );
      }),
      vscode.debug.registerDebugAdapterTrackerFactory(DEBUG_TYPE, {
        createDebugAdapterTracker: session => ({
          onDidSendMessage: (m: { type?: string; event?: string }) => {
            if (m.type !== 'event') return;
            if (m.event === 'stopped') void this.onStopped(session);
            else if (m.event === 'terminated' || m.event === 'art/end') this.setHighlight(session.configuration.program, undefined);
          },
        }),
      }),
    );
  }

  /** The diagram shown for a spec (for the tests). */
  diagramOf(uri: vscode.Uri): Readonly<Shown> | undefined {
    return this.shown.get(uri.toString());
  }

  async show(editor = vscode.window.activeTextEditor): Promise<vscode.WebviewPanel | undefined> {
    const doc = editor?.document;
    if (!doc || !/\.agent$/i.test(doc.uri.path)) {
      void vscode.window.showInformationMessage('ART Studio: open an .agent spec and put the cursor in an agent to show its diagram.');
      return undefined;
    }
    const agents = parseAgentFile(doc.getText()).agents;
    if (!agents.length) {
      void vscode.window.showErrorMessage(
        `ART Studio: ${vscode.workspace.asRelativePath(doc.uri)} defines no agent: write a (define NAME (:states ...) (:behavior ...)).`,
      );
      return undefined;
    }
    const index = agentAt(agents, doc.offsetAt(editor.selection.active));
    const key = doc.uri.toString();
    let s = this.shown.get(key);
    if (!s) {
      const panel = vscode.window.createWebviewPanel(
        DIAGRAM_VIEW_TYPE,
        'Agent Diagram',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: true },
      );
      s = { panel, uri: doc.uri, name: agents[index].name, index, svg: '' };
      this.shown.set(key, s);
      panel.webview.html = this.html();
      panel.webview.onDidReceiveMessage((m: { type?: string; state?: string }) => {
        if (m.type === 'open' && typeof m.state === 'string') void this.openState(key, m.state);
        // The page just loaded: send what it missed.
        else if (m.type === 'ready' && s?.svg) void panel.webview.postMessage({ type: 'svg', svg: s.svg });
      });
      panel.onDidDispose(() => {
        this.shown.delete(key);
        clearTimeout(this.timers.get(key));
      });
    } else {
      s.name = agents[index].name;
      s.index = index;
      s.panel.reveal(vscode.ViewColumn.Beside, true);
    }
    this.redraw(key, doc.getText());
    return s.panel;
  }

  private redraw(key: string, text: string): void {
    const s = this.shown.get(key);
    if (!s) return;
    const agents = parseAgentFile(text).agents;
    const agent = agents.find(a => a.name === s.name) ?? agents[Math.min(s.index, agents.length - 1)];
    if (!agent) {
      void s.panel.webview.postMessage({ type: 'problem', text: 'The spec defines no agent.' });
      return;
    }
    try {
      s.agent = agent;
      s.name = agent.name;
      s.compiled = compileAgent(agent);
      s.panel.title = `Agent Diagram: ${agent.name || '(unnamed)'}`;
      s.svg = agentDiagramSvg(s.compiled, s.highlight);
      void s.panel.webview.postMessage({ type: 'svg', svg: s.svg, highlight: s.highlight ?? null });
    } catch (e) {
      this.log.warn(`agent diagram: ${(e as Error).message}`);
      void s.panel.webview.postMessage({ type: 'problem', text: `The diagram cannot be drawn: ${(e as Error).message}` });
    }
  }

  private async onStopped(session: vscode.DebugSession): Promise<void> {
    const program = session.configuration.program;
    if (typeof program !== 'string' || !this.findByPath(program)) return;
    try {
      const r = (await session.customRequest(StateRequest.command)) as StateRequest.Response;
      if (r.kind !== 'agent') return;
      const s = this.findByPath(r.program ?? program);
      if (!s?.compiled) return;
      this.setHighlight(program, highlightOf(s.compiled, r.text, r.corrections ?? []));
    } catch (e) {
      this.log.warn(`agent diagram: the run's state: ${(e as Error).message}`);
    }
  }

  private findByPath(path: unknown): Shown | undefined {
    if (typeof path !== 'string') return undefined;
    return [...this.shown.values()].find(s => s.uri.fsPath === vscode.Uri.file(path).fsPath);
  }

  private setHighlight(program: unknown, h: DiagramHighlight | undefined): void {
    const s = this.findByPath(program);
    if (!s) return;
    s.highlight = h;
    const doc = vscode.workspace.textDocuments.find(d => d.uri.toString() === s.uri.toString());
    if (doc) this.redraw(s.uri.toString(), doc.getText());
  }

  private async openState(key: string, name: string): Promise<void> {
    const s = this.shown.get(key);
    const def = s?.agent?.states.find(st => st.name === name);
    if (!s || !def) return;
    const doc = await vscode.workspace.openTextDocument(s.uri);
    const range = new vscode.Range(doc.positionAt(def.nameSpan.start), doc.positionAt(def.nameSpan.end));
    const column = vscode.window.visibleTextEditors.find(e => e.document === doc)?.viewColumn ?? vscode.ViewColumn.One;
    await vscode.window.showTextDocument(doc, { viewColumn: column, selection: range });
  }

  private html(): string {
    return webviewPage({
      style: `body { padding: 8px; color: var(--vscode-foreground); font-family: var(--vscode-font-family); }
#legend { font-size: 12px; opacity: .8; margin-bottom: 8px; }
#problem { color: var(--vscode-errorForeground); }
.agent-diagram { max-width: none; }
.agent-diagram text { fill: var(--vscode-foreground); font-family: var(--vscode-editor-font-family, monospace); }
.agent-diagram .name { font-weight: bold; }
.agent-diagram .state { cursor: pointer; }
.agent-diagram .state rect { fill: var(--vscode-editor-background); stroke: var(--vscode-foreground); stroke-opacity: .6; }
.agent-diagram .state:hover rect, .agent-diagram .state:focus rect { stroke: var(--vscode-focusBorder); stroke-opacity: 1; }
.agent-diagram .env-input rect { stroke-dasharray: 4 2; fill: var(--vscode-editorWarning-foreground); fill-opacity: .12; }
.agent-diagram .undefined rect { stroke: var(--vscode-errorForeground); }
.agent-diagram .final-ring { fill: none !important; }
.agent-diagram .expected rect { stroke: var(--vscode-charts-green); stroke-width: 2; stroke-opacity: 1; }
.agent-diagram .current rect { stroke: var(--vscode-charts-blue); stroke-width: 3; stroke-opacity: 1; fill: var(--vscode-charts-blue); fill-opacity: .15; }
.agent-diagram .transition { stroke: var(--vscode-foreground); stroke-opacity: .5; }
.agent-diagram .transition.next { stroke: var(--vscode-charts-green); stroke-opacity: 1; stroke-width: 2; }
.agent-diagram .transition.corrected { stroke: var(--vscode-charts-orange); stroke-opacity: 1; stroke-width: 3; stroke-dasharray: 6 3; }
.agent-diagram .correction-label { fill: var(--vscode-charts-orange); font-weight: bold; font-size: 11px; cursor: help; }
.agent-diagram .arrowhead, .agent-diagram .start { fill: var(--vscode-foreground); }`,
      body: `<div id="legend">Dashed: <code>:env-input</code> (the environment writes it) · double border: may end the run · blue: where the run is · green: allowed next · orange, dashed: a transition the decoding monitor corrected the model on (hover for what). Click a state to open its definition.</div>
<div id="problem"></div>
<div id="diagram"></div>`,
      script: {
        inline: `const vscode = acquireVsCodeApi();
const diagram = document.getElementById('diagram');
const problem = document.getElementById('problem');
window.addEventListener('message', e => {
  const m = e.data;
  if (m.type === 'svg') { diagram.innerHTML = m.svg; problem.textContent = ''; }
  else if (m.type === 'problem') problem.textContent = m.text;
});
const open = target => {
  const g = target.closest && target.closest('[data-state]');
  if (g) vscode.postMessage({ type: 'open', state: g.getAttribute('data-state') });
};
diagram.addEventListener('click', e => open(e.target));
vscode.postMessage({ type: 'ready' });
diagram.addEventListener('keydown', e => { if (e.key === 'Enter' || e.key === ' ') open(e.target); });`,
      },
    });
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const s of this.shown.values()) s.panel.dispose();
    for (const d of this.subscriptions) d.dispose();
  }
}
