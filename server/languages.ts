// Which language a document is: by language id first (`art`, `art-agent`), else by file extension, because
// clients other than VS Code may send `plaintext` or their own id.
export type LanguageKind = 'art' | 'agent';

export const ART_LANGUAGE_ID = 'art';
export const AGENT_LANGUAGE_ID = 'art-agent';

export function languageOf(uri: string, languageId: string | undefined): LanguageKind | null {
  if (languageId === ART_LANGUAGE_ID) return 'art';
  if (languageId === AGENT_LANGUAGE_ID) return 'agent';
  const path = uri.replace(/[?#].*$/, '').toLowerCase();
  if (path.endsWith('.art')) return 'art';
  if (path.endsWith('.agent')) return 'agent';
  return null;
}
