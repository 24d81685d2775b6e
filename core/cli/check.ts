// `art check FILE...`: diagnostics as `path:line:col: severity: message [code]` (1-based), or LSP-shaped JSON.
import { parseAgentFile, checkAgentFile } from '../agent';
import { checkArt, parseArt, type ToolCatalog } from '../art';
import type { Diagnostic } from '../common/diagnostics';
import { LineIndex, type Range } from '../common/text';
import { isCliError, languageOf, readSource } from './files';
import { plural } from '../common/counts';

export interface FileDiagnostic {
  file: string;
  range: Range;
  severity: Diagnostic['severity'];
  code: string;
  message: string;
}

export function diagnoseFile(path: string, tools?: ToolCatalog): FileDiagnostic[] {
  const text = readSource(path);
  const lang = languageOf(path);
  const diagnostics = lang === 'art' ? checkArt(parseArt(text), { tools }) : checkAgentFile(parseAgentFile(text));
  const index = new LineIndex(text);
  return diagnostics.map(d => ({ file: path, range: index.range(d.span), severity: d.severity, code: d.code, message: d.message }));
}

/** The code of the diagnostic that stands for a file `art check` could not read (or whose type it does not know). */
export const UNREADABLE_FILE = 'unreadable-file';

/**
 * Checks every file; one that cannot be read (missing, binary, unknown type, ...) becomes one `unreadable-file`
 * error at its start, with the one-line message `art check` prints on stderr for it, and the others are checked.
 */
export function checkFiles(paths: readonly string[], tools?: ToolCatalog): { diagnostics: FileDiagnostic[]; unreadable: string[] } {
  const diagnostics: FileDiagnostic[] = [];
  const unreadable: string[] = [];
  for (const path of paths) {
    try {
      diagnostics.push(...diagnoseFile(path, tools));
    } catch (e) {
      if (!isCliError(e)) throw e;
      // The CliError reads `PATH: problem: fix`; the diagnostic already names the file.
      const message = e.message.startsWith(`${path}: `) ? e.message.slice(path.length + 2) : e.message;
      const start = { line: 0, character: 0 };
      diagnostics.push({ file: path, range: { start, end: start }, severity: 'error', code: UNREADABLE_FILE, message });
      unreadable.push(e.message);
    }
  }
  return { diagnostics, unreadable };
}

export function formatDiagnostic(d: FileDiagnostic): string {
  return `${d.file}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.severity}: ${d.message} [${d.code}]`;
}

/** How many files could not be read, of those the diagnostics are about. */
export function unreadFiles(diagnostics: readonly FileDiagnostic[]): number {
  return new Set(diagnostics.filter(d => d.code === UNREADABLE_FILE).map(d => d.file)).size;
}

/**
 * `checked 2 files: no problems` / `checked 1 file: 1 error, 2 warnings` / `checked 2 of 3 files: no problems; 1 could not
 * be read` / `nothing checked: 1 file could not be read` (a file not read is never said to have no problems).
 */
export function checkSummary(files: number, diagnostics: readonly FileDiagnostic[]): string {
  const all = diagnostics.filter(d => d.code !== UNREADABLE_FILE);
  const unread = unreadFiles(diagnostics);
  if (unread >= files) return `nothing checked: ${plural(unread, 'file')} could not be read`;
  const count = (sev: FileDiagnostic['severity']) => all.filter(d => d.severity === sev).length;
  const parts = [
    count('error') && plural(count('error'), 'error'),
    count('warning') && plural(count('warning'), 'warning'),
    all.length - count('error') - count('warning') && plural(all.length - count('error') - count('warning'), 'note'),
  ].filter(Boolean);
  const found = parts.length ? parts.join(', ') : 'no problems';
  return unread
    ? `checked ${files - unread} of ${plural(files, 'file')}: ${found}; ${unread} could not be read`
    : `checked ${plural(files, 'file')}: ${found}`;
}
