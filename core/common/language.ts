// Which language a file is in, decided in one place for the language server, the launcher, `art` and VS Code: by
// the editor's language id when there is one (`art`, `art-agent`; other clients may send `plaintext` or their own),
// else by the file's extension.

/** The extension of a MultiTool-CoT prompt (a plain text file): `arithmetic.cot.txt`. */
export const COT_EXTENSION = '.cot.txt';

/** VS Code's language ids of the two languages (package.json's `contributes.languages`). */
export const LANGUAGE_IDS = { art: 'art', agent: 'art-agent' } as const;

/** The languages the language server checks: task libraries (.art) and agent specs (.agent). */
export type SourceLanguage = keyof typeof LANGUAGE_IDS;

/** Every kind of file a run can start from: a source, a MultiTool-CoT prompt (.cot.txt) or a run trace (.jsonl). */
export type FileLanguage = SourceLanguage | 'multitool' | 'trace';

/** The language of the file at `path` (a path, or a URI without query and fragment), or undefined for another file. */
export function languageOf(path: string, languageId?: string): FileLanguage | undefined {
  if (languageId === LANGUAGE_IDS.art) return 'art';
  if (languageId === LANGUAGE_IDS.agent) return 'agent';
  const p = path.toLowerCase();
  if (p.endsWith(COT_EXTENSION)) return 'multitool';
  if (p.endsWith('.art')) return 'art';
  if (p.endsWith('.agent')) return 'agent';
  if (p.endsWith('.jsonl')) return 'trace';
  return undefined;
}

export function isSourceLanguage(language: FileLanguage | undefined): language is SourceLanguage {
  return language === 'art' || language === 'agent';
}
