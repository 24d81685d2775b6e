// Which program of a task library, or which agent of a spec, a `task` names: a 0-based index or a name.
import type { AgentDef, AgentFile } from '../agent/ast';
import { normalizeName, programTitle, type ArtDocument } from '../art/ast';
import { LaunchError } from './options';

/** The program a `task` names: a 0-based index, or a task name (its `(Task name)` or title), case-insensitively. */
export function pickProgram(doc: ArtDocument, task: string | number | undefined): number {
  const runnable = doc.programs.map((p, i) => ({ p, i })).filter(({ p }) => !p.template);
  if (!runnable.length) throw new LaunchError('the file has no program to run (only a prompt template, or nothing)');
  const list = () => runnable.map(({ p, i }) => `${i}: ${programTitle(p, i)}`).join(', ');
  if (task === undefined || task === '') return runnable[0].i;
  const asIndex = typeof task === 'number' ? task : /^\s*\d+\s*$/.test(task) ? Number(task) : undefined;
  if (asIndex !== undefined) {
    const p = doc.programs[asIndex];
    if (!Number.isInteger(asIndex) || !p) throw new LaunchError(`no program ${asIndex}: the file has programs ${list()}`);
    if (p.template) throw new LaunchError(`program ${asIndex} is the prompt template, not a program: choose one of ${list()}`);
    return asIndex;
  }
  const want = normalizeName(String(task));
  const byName = runnable.filter(({ p, i }) => normalizeName(p.description?.taskName ?? '') === want || normalizeName(programTitle(p, i)) === want);
  if (byName.length) return byName[0].i;
  throw new LaunchError(`no task named "${task}": the file has ${list()}`);
}

/** The agent a `task` names: a 0-based index, or the agent's name. */
export function pickAgent(file: AgentFile, task: string | number | undefined): number {
  const named = (a: AgentDef, i: number) => `${i}: ${a.name || '(unnamed)'}`;
  if (!file.agents.length) throw new LaunchError('the file defines no agent');
  const list = () => file.agents.map(named).join(', ');
  if (task === undefined || task === '') return 0;
  const asIndex = typeof task === 'number' ? task : /^\s*\d+\s*$/.test(task) ? Number(task) : undefined;
  if (asIndex !== undefined) {
    if (!file.agents[asIndex]) throw new LaunchError(`no agent ${asIndex}: the file has ${list()}`);
    return asIndex;
  }
  const i = file.agents.findIndex(a => a.name === String(task));
  if (i < 0) throw new LaunchError(`no agent named "${task}": the file has ${list()}`);
  return i;
}
