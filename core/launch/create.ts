// One function per kind of run: build the protocol (prompt, detection) and the Runner over it.
import type { ArtDocument } from '../art/ast';
import { AgentProtocol, type AgentRunSpec } from '../protocols/agentProtocol';
import { ArtProtocol } from '../protocols/artProtocol';
import { MultiToolProtocol, type MultiToolRunSpec } from '../protocols/multitoolProtocol';
import { buildArtPrompt, taskOf } from '../prompt/prompt';
import { Runner } from '../engine/runner';
import { selectDemonstrations, type Demonstration, type SelectionOptions, type TaskSpec } from '../prompt/selection';
import type { RunnerOptions } from '../engine/runnerOptions';
import { withoutUndefined } from '../common/text';

export interface ArtRunSpec {
  /** The task library the demonstrations come from (the file being run). */
  library: ArtDocument;
  /** More libraries to select from with `selection.strategy: 'similar'`. */
  otherLibraries?: ArtDocument[];
  /** Run this program of the library again: its description and input, and it is left out of the demonstrations. */
  program?: number;
  /** The new task; with `program`, overrides its fields (e.g. a new input). */
  task?: Partial<TaskSpec>;
  selection?: SelectionOptions;
  /** The demonstrations, chosen beforehand (core/evaluation/taskSelection.ts): `selection` is then not used. */
  demonstrations?: Demonstration[];
  /** Honour inline `<<Tool>>` triggers inside the answers the model writes (the run option inlineTriggers). */
  inlineTriggers?: boolean;
}

export function createArtRunner(spec: ArtRunSpec, opts: RunnerOptions): Runner {
  const base: Partial<TaskSpec> = spec.program !== undefined ? taskOf(spec.library, spec.program) : {};
  const task: TaskSpec = { ...base, ...withoutUndefined(spec.task ?? {}), input: spec.task?.input ?? base.input ?? '' };
  if (!task.input.trim()) throw new Error('the task has no input: give one, or pick a program of the library');
  const exclude = [...(spec.selection?.exclude ?? []), ...(spec.program !== undefined ? [spec.program] : [])];
  const demos = spec.demonstrations ?? selectDemonstrations([spec.library, ...(spec.otherLibraries ?? [])], task, { ...spec.selection, exclude });
  const { prompt, header, demonstrations } = buildArtPrompt(spec.library, task, demos);
  return new Runner(new ArtProtocol(prompt, header, opts.tools, { inlineTriggers: spec.inlineTriggers, demonstrations }), opts);
}

export function createAgentRunner(spec: AgentRunSpec, opts: RunnerOptions): Runner {
  return new Runner(new AgentProtocol(spec, opts.tools), opts);
}

export function createMultiToolRunner(spec: MultiToolRunSpec, opts: RunnerOptions): Runner {
  return new Runner(new MultiToolProtocol(spec, opts.tools), opts);
}
