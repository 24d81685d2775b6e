// The few-shot prompt for a new task, as the ART reference builds it: the library's preamble, the selected
// demonstrations separated by `----`, then the new task filled into the library's `%s` template (or a plain
// `Description:`/`Input:` pair) ending in `Q1:`, where the model starts writing the program.
import { programTitle, type ArtDocument } from '../art/ast';
import { parseArt } from '../art/parse';
import type { PromptDemonstration } from '../trace/vocabulary';
import type { Demonstration, TaskSpec } from './selection';

export const SEPARATOR = '----';

/** Whether the library is a Python format string: it ends in a `%s` template, which the reference fills with `%`. */
export function isPythonFormat(library: ArtDocument): boolean {
  return library.programs.some(p => p.template && /%s/.test(library.text.slice(p.span.start, p.span.end)));
}

/**
 * The library as the model saw it. The ART reference fills a library's `%s` template with `prompt % (...)`, so
 * `%%` in a library with a template reads `%` (in the prompt, in the recorded text a replay writes, in the code a
 * step runs, in the Variables view); a library without a template is taken literally. Every run of a library goes
 * through here. Lines are kept, so a step's line is the same in both texts.
 */
export function libraryAsRun(library: ArtDocument): ArtDocument {
  if (!library.text.includes('%%') || !isPythonFormat(library)) return library;
  return parseArt(library.text.replace(/%%/g, '%'));
}

export interface ArtPrompt {
  /** Everything the model continues. */
  prompt: string;
  /** The new task's own lines (the end of `prompt`), through `Q1:`. */
  header: string;
  /** The demonstrations in the prompt, in order, with why each was chosen (for the trace and "Show Prompt"). */
  demonstrations: PromptDemonstration[];
}

export function buildArtPrompt(library: ArtDocument, task: TaskSpec, demonstrations: Demonstration[]): ArtPrompt {
  const header = taskHeader(library, task);
  const parts: string[] = [];
  if (library.preamble) parts.push(`${library.preamble.text}\n`);
  for (const d of demonstrations) parts.push(`${d.doc.text.slice(d.program.span.start, d.program.span.end).replace(/\s+$/, '')}\n${SEPARATOR}`);
  return { prompt: `${parts.join('\n')}${parts.length ? '\n' : ''}${header}`, header, demonstrations: demonstrations.map(promptDemonstration) };
}

/** A demonstration as the trace keeps it: where it is, its title and why it was chosen. */
export function promptDemonstration(d: Demonstration): PromptDemonstration {
  const line = d.doc.text.slice(0, d.program.span.start).split('\n').length;
  return { ...(d.file ? { file: d.file } : {}), index: d.index, title: programTitle(d.program, d.index), line, ...(d.why ? { why: d.why } : {}) };
}

/** The description line's value: `(Task name) description`. */
export function descriptionText(task: TaskSpec): string {
  const d = task.description?.trim() ?? '';
  return task.taskName ? `(${task.taskName.trim()})${d ? ` ${d}` : ''}` : d;
}

/** The new task's lines: the library's template filled in when it has one, else `Description:`/`Input:`/`Q1:`. */
export function taskHeader(library: ArtDocument, task: TaskSpec): string {
  const description = descriptionText(task);
  const input = task.input.trim();
  const template = library.programs.find(p => p.template);
  if (template) {
    const t = library.text.slice(template.span.start, template.span.end).replace(/\s+$/, '');
    const values = t.indexOf('%s') === t.lastIndexOf('%s') ? [input] : [description, input];
    let i = 0;
    const filled = t.replace(/%s/g, () => values[i++] ?? '');
    if (/Q1\s*[:：]$/.test(filled)) return filled.replace(/Q1\s*[:：]$/, 'Q1:');
  }
  return `${description ? `Description: ${description}\n` : ''}Input: ${input}\nQ1:`;
}

/** The task of an existing program (to run it again, or to replay it). */
export function taskOf(library: ArtDocument, index: number): TaskSpec {
  const p = library.programs[index];
  if (!p) throw new Error(`the library has no program ${index} (it has ${library.programs.length})`);
  if (!p.input) throw new Error(`program ${index + 1} has no Input: to run`);
  const d = p.description;
  // The parser keeps the `(Task name)` apart from the description's text.
  return { taskName: d?.taskName ?? undefined, description: d?.text, input: p.input.text };
}
