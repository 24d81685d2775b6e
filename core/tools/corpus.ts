// A local document folder as a searchable corpus: `.txt` and `.md` files split into passages and indexed with
// MiniSearch (BM25). The index is built on first use, cached per folder, and rebuilt when a file is added, removed
// or modified (its mtime or size changes). Both `search` and ReACT's `Search`/`Lookup` read corpora from here.
import { readTextFile } from '../common/textFile';
import { readdir, stat } from 'node:fs/promises';
import { basename, extname, join, relative, resolve } from 'node:path';
import MiniSearch, { type SearchResult } from 'minisearch';
import { errorMessage, fail, stoppedResult, type Deadline } from './common';
import type { ToolResult } from './types';

export interface Passage {
  /** Unique within the corpus: `file#n`. */
  id: string;
  /** Path relative to the corpus folder. */
  file: string;
  title: string;
  /** 0-based position of the passage in its document. */
  index: number;
  text: string;
}

export interface CorpusDocument {
  file: string;
  title: string;
  passages: Passage[];
  /** The body without its title line, passages separated by blank lines. */
  text: string;
}

export interface ScoredPassage {
  passage: Passage;
  score: number;
}

export interface Corpus {
  folder: string;
  documents: CorpusDocument[];
  /** Passages ranked by BM25 for `query`, best first. */
  searchPassages(query: string, limit: number): ScoredPassage[];
  /** Documents ranked by their title and text matching `query`, best first. */
  searchDocuments(query: string, limit: number): { document: CorpusDocument; score: number }[];
}

const EXTENSIONS = new Set(['.txt', '.md', '.markdown']);
/** Bounds so that pointing the tool at a huge folder degrades instead of exhausting memory. */
const MAX_FILES = 5000;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Passages longer than this many words are cut at sentence ends. */
const MAX_PASSAGE_WORDS = 120;

/**
 * Words that carry no topic in a question ("What is the formula for ..."); dropping them keeps BM25 from ranking
 * passages by how often they say "the".
 */
const STOP_WORDS = new Set(
  (
    'a an and are as at be but by can could did do does for from had has have how i if in into is it its of on or ' +
    'so than that the their them then there these they this to was were what when where which who whom whose why ' +
    'will with would you your about after before during over under between'
  ).split(' '),
);

function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  return STOP_WORDS.has(t) ? null : t;
}

const SEARCH_OPTIONS = {
  combineWith: 'OR' as const,
  prefix: (term: string) => term.length >= 4,
  fuzzy: (term: string) => (term.length >= 5 ? 0.15 : false),
  boost: { title: 2 },
};

/** Splits a document into its title and passages (paragraphs; long paragraphs cut at sentence ends). */
export function splitDocument(file: string, raw: string): CorpusDocument {
  const text = raw.replace(/\r\n?/g, '\n');
  const paragraphs = text
    .split(/\n\s*\n/)
    .map(p => p.trim())
    .filter(p => p.length > 0);
  let title = basename(file, extname(file)).replace(/[-_]+/g, ' ');
  const heading = /^#{1,6}\s+(.+)$/.exec(paragraphs[0]?.split('\n')[0] ?? '');
  if (heading) {
    title = heading[1].trim();
    const rest = paragraphs[0].split('\n').slice(1).join('\n').trim();
    if (rest) paragraphs[0] = rest;
    else paragraphs.shift();
  } else if (paragraphs.length > 1 && paragraphs[0].length <= 80 && !/[.!?:]$/.test(paragraphs[0]) && !paragraphs[0].includes('\n')) {
    // A short first line without final punctuation is a plain-text title.
    title = paragraphs.shift()!;
  }
  const passages: Passage[] = [];
  for (const para of paragraphs) {
    const clean = para
      .replace(/^#{1,6}\s+/gm, '')
      .replace(/\s*\n\s*/g, ' ')
      .trim();
    for (const chunk of chunkBySentences(clean)) {
      passages.push({ id: `${file}#${passages.length}`, file, title, index: passages.length, text: chunk });
    }
  }
  return { file, title, passages, text: passages.map(p => p.text).join('\n\n') };
}

/** Sentence boundaries: end punctuation followed by space and a capital, digit or quote. */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?]["')\]]?)\s+(?=["'([]?[A-Z0-9])/)
    .map(s => s.trim())
    .filter(Boolean);
}

function chunkBySentences(paragraph: string): string[] {
  const words = paragraph.split(/\s+/).length;
  if (words <= MAX_PASSAGE_WORDS) return [paragraph];
  const chunks: string[] = [];
  let current: string[] = [];
  let count = 0;
  for (const s of splitSentences(paragraph)) {
    const n = s.split(/\s+/).length;
    if (count > 0 && count + n > MAX_PASSAGE_WORDS) {
      chunks.push(current.join(' '));
      current = [];
      count = 0;
    }
    current.push(s);
    count += n;
  }
  if (current.length) chunks.push(current.join(' '));
  return chunks;
}

interface FileEntry {
  path: string;
  rel: string;
  mtimeMs: number;
  size: number;
}

async function listFiles(folder: string): Promise<FileEntry[]> {
  const out: FileEntry[] = [];
  async function walk(dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (out.length >= MAX_FILES) return;
      if (e.name.startsWith('.') || e.name === 'node_modules') continue;
      const p = join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile() && EXTENSIONS.has(extname(e.name).toLowerCase())) {
        const s = await stat(p);
        out.push({ path: p, rel: relative(folder, p).split('\\').join('/'), mtimeMs: s.mtimeMs, size: s.size });
      }
    }
  }
  await walk(folder);
  return out;
}

function buildCorpus(folder: string, docs: CorpusDocument[]): Corpus {
  const passageIndex = new MiniSearch<Passage>({
    fields: ['title', 'text'],
    storeFields: [],
    processTerm,
    searchOptions: SEARCH_OPTIONS,
  });
  const byId = new Map<string, Passage>();
  for (const d of docs) for (const p of d.passages) byId.set(p.id, p);
  passageIndex.addAll([...byId.values()]);

  const documentIndex = new MiniSearch<{ id: string; title: string; text: string }>({
    fields: ['title', 'text'],
    storeFields: [],
    processTerm,
    searchOptions: { ...SEARCH_OPTIONS, boost: { title: 4 } },
  });
  documentIndex.addAll(docs.map(d => ({ id: d.file, title: d.title, text: d.text })));
  const byFile = new Map(docs.map(d => [d.file, d]));

  const rank = (results: SearchResult[]) => results.map(r => ({ id: String(r.id), score: r.score }));
  return {
    folder,
    documents: docs,
    searchPassages(query, limit) {
      return rank(passageIndex.search(query))
        .slice(0, limit)
        .map(r => ({ passage: byId.get(r.id)!, score: r.score }));
    },
    searchDocuments(query, limit) {
      return rank(documentIndex.search(query))
        .slice(0, limit)
        .map(r => ({ document: byFile.get(r.id)!, score: r.score }));
    },
  };
}

interface CacheEntry {
  signature: string;
  corpus: Corpus;
}
const cache = new Map<string, CacheEntry>();
const building = new Map<string, Promise<Corpus>>();

export class CorpusError extends Error {}

/** What a corpus tool (`search`, ReACT `Search`) returns when it threw: stopped, a corpus problem, or a failure. */
export function corpusToolFailure(tool: string, e: unknown, d: Deadline): ToolResult {
  if (d.signal.aborted) return stoppedResult(tool, d);
  if (e instanceof CorpusError) return fail(`[${tool}] ${e.message}`);
  return fail(`[${tool}] failed: ${errorMessage(e)}`);
}

/**
 * The corpus of `folder`, from the cache when no file changed since it was built. Throws CorpusError with a
 * message fit for the user when the folder is missing or holds no documents.
 */
export async function loadCorpus(folder: string): Promise<Corpus> {
  const abs = resolve(folder);
  let files: FileEntry[];
  try {
    const s = await stat(abs);
    if (!s.isDirectory()) throw new CorpusError(`the corpus path ${abs} is not a folder`);
    files = await listFiles(abs);
  } catch (e) {
    if (e instanceof CorpusError) throw e;
    throw new CorpusError(
      `the corpus folder ${abs} does not exist or cannot be read: create it with .txt or .md documents, or point the search tool at another folder`,
    );
  }
  if (files.length === 0) throw new CorpusError(`the corpus folder ${abs} holds no .txt or .md documents`);
  const signature = files.map(f => `${f.rel}:${f.mtimeMs}:${f.size}`).join('|');
  const hit = cache.get(abs);
  if (hit && hit.signature === signature) return hit.corpus;
  const key = `${abs}\0${signature}`;
  let pending = building.get(key);
  if (!pending) {
    pending = (async () => {
      const docs: CorpusDocument[] = [];
      for (const f of files) {
        if (f.size > MAX_FILE_BYTES) continue;
        let text: string;
        try {
          text = readTextFile(f.path, MAX_FILE_BYTES);
        } catch {
          continue; // not a regular text file (a FIFO, a device, binary): not a document
        }
        docs.push(splitDocument(f.rel, text));
      }
      const corpus = buildCorpus(abs, docs);
      cache.set(abs, { signature, corpus });
      return corpus;
    })().finally(() => building.delete(key));
    building.set(key, pending);
  }
  return pending;
}
