// `lookup`: which of the candidate words are real English words. The word list is a plain file of one word per
// line, by default Debian's /usr/share/dict/words (package `wamerican`; macOS ships the same path). A candidate
// matches an entry spelled the same, or its lower-case form; a lower-case candidate never matches a capitalised
// entry, so proper nouns ("Twins", a team) do not count as common words.
import { stat } from 'node:fs/promises';
import { readTextFile } from '../common/textFile';
import { builtinInfo, fail, ok, referencedAnswer } from './common';
import type { Tool, ToolInput, ToolResult } from './types';

export const DEFAULT_WORD_LIST = '/usr/share/dict/words';

/** A longer word list is refused (Debian's is about 1 MB). */
const MAX_WORD_LIST_BYTES = 64 * 1024 * 1024;

const lists = new Map<string, { mtimeMs: number; words: Set<string> }>();

async function loadWordList(path: string): Promise<Set<string>> {
  const s = await stat(path);
  const hit = lists.get(path);
  if (hit && hit.mtimeMs === s.mtimeMs) return hit.words;
  const words = new Set(
    // Through the bounded reader: a FIFO or /dev/zero as the word list is refused, not read forever.
    readTextFile(path, MAX_WORD_LIST_BYTES)
      .split(/\r?\n/)
      .map(w => w.trim())
      .filter(Boolean),
  );
  lists.set(path, { mtimeMs: s.mtimeMs, words });
  return words;
}

/**
 * The candidate words in `text`: a JSON or Python list (`["nwist", 'twins']`), else quoted words, else the words
 * separated by commas or white space.
 */
export function parseCandidates(text: string): string[] {
  const list = /\[[^[\]]*\]/.exec(text)?.[0];
  if (list) {
    try {
      const parsed: unknown = JSON.parse(list.replace(/'([^'\\]*)'/g, '"$1"'));
      if (Array.isArray(parsed)) return parsed.map(x => String(x).trim()).filter(Boolean);
    } catch {
      /* not a list literal: fall through */
    }
  }
  const quoted = [...text.matchAll(/["“']([^"”']+)["”']/g)].map(m => m[1].trim());
  if (quoted.length) return quoted;
  return text
    .split(/[\s,;]+/)
    .map(w => w.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, ''))
    .filter(Boolean);
}

export function createLookupTool(opts: { wordListPath?: string } = {}): Tool {
  const path = opts.wordListPath ?? DEFAULT_WORD_LIST;
  return {
    info: builtinInfo('lookup'),
    async run(input: ToolInput): Promise<ToolResult> {
      // The previous answer's list first (`#2: ["nwist", "twins"]`), then a list or quoted words in the
      // instruction, then the previous answer's bare words; never the instruction's prose ("Which word ...").
      const source = referencedAnswer(input) ?? '';
      let candidates = /\[[^[\]]*\]/.test(source) ? parseCandidates(source) : [];
      if (!candidates.length && /[["“']/.test(input.instruction)) candidates = parseCandidates(input.instruction);
      if (!candidates.length) candidates = parseCandidates(source);
      if (candidates.length === 0)
        return fail('[lookup] found no candidate words: give a list such as ["nwist", "twins"] in the previous answer or the instruction');
      let words: Set<string>;
      try {
        words = await loadWordList(path);
      } catch {
        return fail(
          `[lookup] the word list ${path} is missing: install Debian's word list (apt-get install wamerican) or configure another word list file`,
        );
      }
      const found: string[] = [];
      for (const c of candidates) {
        if ((words.has(c) || words.has(c.toLowerCase())) && !found.includes(c)) found.push(c);
      }
      if (found.length === 0) {
        return fail(`[lookup] none of the ${candidates.length} candidate word(s) is in the word list ${path}`, {
          details: { candidates: candidates.length },
        });
      }
      return ok(found.length === 1 ? found[0] : JSON.stringify(found), { candidates: candidates.length, wordList: path });
    },
  };
}
