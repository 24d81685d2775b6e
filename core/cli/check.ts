// `art check FILE...`: diagnostics as `path:line:col: severity: message [code]` (1-based), or LSP-shaped JSON.
import { parseAgentFile, checkAgentFile } from '../agent';
import { checkArt, parseArt, type ToolCatalog } from '../art';
import type { Diagnostic } from '../common/diagnostics';
import { LineIndex, type Range } from '../common/text';
import { languageOf, readSource } from './files';
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

export function formatDiagnostic(d: FileDiagnostic): string {
  return `${d.file}:${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.severity}: ${d.message} [${d.code}]`;
}

/** `checked 2 files: no problems` / `checked 1 file: 1 error, 2 warnings`. */
export function checkSummary(files: number, all: readonly FileDiagnostic[]): string {
  const count = (sev: FileDiagnostic['severity']) => all.filter(d => d.severity === sev).length;
  const parts = [
    count('error') && plural(count('error'), 'error'),
    count('warning') && plural(count('warning'), 'warning'),
    all.length - count('error') - count('warning') && plural(all.length - count('error') - count('warning'), 'note'),
  ].filter(Boolean);
  return `checked ${plural(files, 'file')}: ${parts.length ? parts.join(', ') : 'no problems'}`;
}
