// Save as demonstration (ART's human-feedback loop): a finished run, with its overrides, becomes a program that
// can be appended to a task library. Core computes the text and the edit; the client applies it as a WorkspaceEdit.
import { parseArt } from '../art/parse';
import type { TextEdit } from '../common/diagnostics';
import { SEPARATOR } from './prompt';
import type { RunKind } from '../trace/vocabulary';

export class DemonstrationError extends Error {}

/**
 * The run's program with canonical `Description:`/`Input:` lines (a template's typos are not copied), then the
 * steps and `Ans:` exactly as generated and corrected.
 */
export function demonstrationText(run: { kind: RunKind; text: string }): string {
  if (run.kind !== 'art') throw new DemonstrationError('only ART runs can be saved as a demonstration');
  const doc = parseArt(run.text);
  const p = doc.programs.find(q => q.steps.length > 0);
  if (!p || !p.input) throw new DemonstrationError('the run has no program with an Input: and steps');
  if (!p.ans) throw new DemonstrationError('the run did not reach `Ans:`; finish it (or correct it) before saving it as a demonstration');
  const lines: string[] = [];
  const d = p.description;
  if (d && (d.taskName || d.text.trim())) lines.push(`Description: ${d.taskName ? `(${d.taskName}) ` : ''}${d.text.trim()}`.trimEnd());
  lines.push(`Input: ${p.input.text.trim()}`);
  const body = run.text.slice(p.steps[0].marker.start, p.ans.span.end).replace(/\s+$/, '');
  return `${lines.join('\n')}\n${body}`;
}

/**
 * The edit that adds `program` to a library: before the `%s` template when the library ends with one (the template
 * stays last), else at the end, separated by `----` when the library uses separators.
 */
export function appendDemonstrationEdit(libraryText: string, program: string): TextEdit {
  const doc = parseArt(libraryText);
  const text = program.replace(/\s+$/, '');
  const template = doc.programs.find(p => p.template);
  if (template) {
    return { span: { start: template.span.start, end: template.span.start }, newText: `${text}\n${SEPARATOR}\n` };
  }
  const end = libraryText.length;
  const lead = libraryText === '' || libraryText.endsWith('\n') ? '' : '\n';
  const sep = doc.programs.length === 0 ? '' : doc.separators.length > 0 ? `${SEPARATOR}\n` : '\n';
  return { span: { start: end, end }, newText: `${lead}${sep}${text}\n` };
}
