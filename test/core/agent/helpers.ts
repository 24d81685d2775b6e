// Shared helpers for the .agent tests: the fixture specs and trace (test/fixtures), edits, and diagnostics located by line.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic } from '../../../core/common/diagnostics';
import { LineIndex } from '../../../core/common/text';
import { checkAgentFile, compileAgent, formulaToString, parseAgentFile, type CompiledAgent } from '../../../core/agent';

import { FIXTURES } from '../../support/fixtures';

/** The six agents of Crouse et al. (2023) as the project's own fixture specs (the corpus suite checks the paper's). */
export const AGENTS_DIR = join(FIXTURES, 'agents');

export function fixtureAgent(name: string): string {
  return readFileSync(join(AGENTS_DIR, `${name}.agent`), 'utf8');
}

export function fixtureAgentFiles(): { name: string; text: string }[] {
  return readdirSync(AGENTS_DIR)
    .filter(f => f.endsWith('.agent'))
    .sort()
    .map(name => ({ name, text: readFileSync(join(AGENTS_DIR, name), 'utf8') }));
}

export function reactTrace(): string {
  return readFileSync(join(FIXTURES, 'traces/react-milhouse.txt'), 'utf8');
}

export function compiled(text: string, index = 0): CompiledAgent {
  return compileAgent(parseAgentFile(text).agents[index]);
}

export function check(text: string): Diagnostic[] {
  return checkAgentFile(parseAgentFile(text));
}

/** Diagnostics as `code@line` (1-based lines), for compact assertions. */
export function codesAt(text: string, ds = check(text)): string[] {
  const index = new LineIndex(text);
  return ds.map(d => `${d.code}@${index.position(d.span.start).line + 1}`);
}

/** 1-based line of the first line containing `needle`. */
export function lineOf(text: string, needle: string): number {
  const i = text.indexOf(needle);
  if (i < 0) throw new Error(`not found: ${needle}`);
  return new LineIndex(text).position(i).line + 1;
}

/** Replace exactly one occurrence of `from` (fails loudly when the test's premise is wrong). */
export function replaceOnce(text: string, from: string, to: string): string {
  const i = text.indexOf(from);
  if (i < 0 || text.indexOf(from, i + 1) >= 0) throw new Error(`expected exactly one '${from}'`);
  return text.slice(0, i) + to + text.slice(i + from.length);
}

export { applyEdits } from '../../../core/common/diagnostics';

export { prng } from '../../support/random';

/** What a spec means, without spans: agents, states (name, text, flags) and behaviors. */
export function meaning(text: string): unknown {
  return parseAgentFile(text).agents.map(a => ({
    name: a.name,
    states: a.states.map(s => [s.name, s.text, s.flags.map(f => f.name)]),
    behavior: a.behavior && formulaToString(a.behavior),
  }));
}

/** An agent whose behavior nests `depth` lists deep, the define and the clause included. */
export function deepAgent(depth: number): string {
  const n = depth - 2;
  return `(define deep\n  (:states (A (:text "[A]")))\n  (:behavior ${'(next A '.repeat(n)}A${')'.repeat(n)}))\n`;
}
