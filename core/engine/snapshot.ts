// What a debugger shows of a run: the snapshot (the program so far, its steps and calls, the counts) and the steps,
// each linked to its call.
import type { RunProtocol } from '../protocols/runProtocol';
import type { Progress } from './checkpoints';
import type { RunState, Snapshot } from './types';
import type { StepView } from '../protocols/types';
import type { ToolCall } from '../trace/vocabulary';

export function snapshotOf(protocol: RunProtocol, state: RunState, p: Progress, currentCall: ToolCall | undefined): Snapshot {
  return {
    kind: protocol.kind,
    state,
    text: protocol.header + p.written,
    generatedFrom: protocol.header.length,
    steps: stepViewsOf(protocol, p),
    call: currentCall ? { ...currentCall } : undefined,
    calls: p.calls.map(c => ({ ...c })),
    agentState: protocol.agentState?.(p.written),
    usage: { ...p.usage },
    requests: p.requests,
    constrainedRequests: p.constrainedRequests,
    corrections: p.corrections,
    ...(p.correctionLog.length ? { monitorCorrections: p.correctionLog.map(c => ({ ...c, expected: [...c.expected] })) } : {}),
    ...(p.replies.list().length ? { reasoning: p.replies.list() } : {}),
  };
}

/** The steps of the text so far, each linked to its call and given the reasoning of the requests that wrote it. */
export function stepViewsOf(protocol: RunProtocol, p: Progress): StepView[] {
  const steps = p.replies.annotate(protocol.steps(p.written), protocol.header.length);
  for (const c of p.calls) {
    const s = steps.find(v => v.number === c.step);
    if (s) s.callId = c.id;
  }
  return steps;
}
