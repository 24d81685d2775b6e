// The agent tool check, and what it and `art check FILE...` find: the diagnostics of task libraries and agent specs,
// as `path:line:col: severity: message [code]` (1-based) and a summary. In the editor the diagnostics are those the
// person sees (the language server's); elsewhere core's check of the files on disk.
import { z } from 'zod';
import { parseAgentFile, checkAgentFile } from '../agent';
import { checkArt, parseArt, type ToolCatalog } from '../art';
import type { FileDiagnostic } from '../common/diagnostics';
import { LineIndex } from '../common/text';
import { CliError, isCliError, languageOf, readSource } from '../common/sourceFiles';
import { plural } from '../common/counts';
import { filePath, rangeShape, shownPath } from './shapes';
import { defineTool } from './tool';

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

const diagnostic = z.object({
  range: rangeShape,
  severity: z.enum(['error', 'warning', 'information', 'hint']),
  code: z.string(),
  message: z.string(),
});

export const check = defineTool({
  name: 'check',
  title: 'Check ART files',
  description:
    'The diagnostics of task libraries (.art) and agent specs (.agent), as `art check` reports them: per file, each problem\'s code (e.g. tool-name-typo), 0-based range and message, then a summary. In the editor, the problems the person sees in the Problems view. A file that cannot be read is an "unreadable-file" diagnostic; the others are still checked.',
  input: {
    files: z
      .array(filePath('A .art or .agent file'))
      .min(1)
      .optional()
      .describe('The .art and .agent files (default: the file in the active editor; art mcp has none: give them).'),
  },
  output: {
    files: z.array(z.object({ file: z.string(), diagnostics: z.array(diagnostic) })),
    errors: z.number(),
    warnings: z.number(),
    summary: z.string(),
  },
  editor: {
    displayName: 'ART: Check Files',
    referenceName: 'artCheck',
    userDescription: 'The problems of ART files as the editor shows them.',
    icon: '$(check)',
    invocation: () => 'Reading the problems of the ART files',
  },
  run: async (input, host) => {
    const active = host.activeFile();
    const names = input.files ?? (active !== undefined ? [shownPath(host, active)] : undefined);
    if (!names) throw new CliError('give "files" (the .art and .agent files to check)');
    // Checked once each at their absolute paths, shown as the caller first gave them; every name given gets its
    // file's diagnostics (a.art and ./a.art are one file).
    const absolute = new Map<string, string>();
    const given = new Map<string, string>();
    for (const f of names) {
      const path = await host.path(f, 'file');
      absolute.set(f, path);
      if (!given.has(path)) given.set(path, f);
    }
    const paths = [...given.keys()];
    const checked = host.views ? await host.views.diagnostics(paths) : checkFiles(paths).diagnostics;
    const diagnostics = checked.map(d => ({ ...d, file: given.get(d.file) ?? d.file }));
    const summary = checkSummary(given.size, diagnostics);
    // Nothing read, nothing checked: an error naming each file and the fix, not a report of problems.
    if (unreadFiles(diagnostics) >= given.size) throw new CliError([...diagnostics.map(d => `${d.file}: ${d.message}`), summary].join('\n'));
    const files = names.map(file => ({
      file,
      diagnostics: checked
        .filter(d => d.file === absolute.get(file))
        .map(({ range, severity, code, message }) => ({ range, severity, code, message })),
    }));
    return {
      text: [...diagnostics.map(formatDiagnostic), summary].join('\n'),
      structured: {
        files,
        errors: diagnostics.filter(d => d.severity === 'error').length,
        warnings: diagnostics.filter(d => d.severity === 'warning').length,
        summary,
      },
    };
  },
});
