// Which language a document is: by language id first (`art`, `art-agent`), else by file extension, because
// clients other than VS Code may send `plaintext` or their own id (core/common/language.ts decides).
import { isSourceLanguage, languageOf as fileLanguage, type SourceLanguage } from '../core/common/language';

export function languageOf(uri: string, languageId: string | undefined): SourceLanguage | null {
  // A URI's query and fragment are not part of the file's name.
  const language = fileLanguage(uri.replace(/[?#].*$/, ''), languageId);
  return isSourceLanguage(language) ? language : null;
}
