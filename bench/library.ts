// Builds large task libraries for benchmarks by varying the corpus programs (numbers, names and inputs change, so
// no two programs are equal and caches keyed by text cannot cheat).
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArt } from '../core/art';

const CORPUS = resolve(__dirname, '../../shared/corpus');

function corpusPrograms(): string[] {
  const files = [
    ...readdirSync(join(CORPUS, 'programs')).map(f => join(CORPUS, 'programs', f)),
    ...readdirSync(join(CORPUS, 'art-library'))
      .filter(f => f.endsWith('.art'))
      .map(f => join(CORPUS, 'art-library', f)),
  ];
  const out: string[] = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (const p of parseArt(text).programs) if (!p.template) out.push(text.slice(p.span.start, p.span.end));
  }
  return out;
}

/** A library of at least `bytes` characters: a preamble, then varied programs separated by `----`. */
export function buildLibrary(bytes: number): string {
  const programs = corpusPrograms();
  const parts = ['In these examples, you are given a task description and an input. Break the input down into subtasks.\n'];
  let size = parts[0].length;
  for (let i = 0; size < bytes; i++) {
    const p = programs[i % programs.length].replace(/Input:([^\n]*)/, (_m, rest) => `Input:${rest} (variant ${i})`);
    parts.push(p, '\n----\n');
    size += p.length + 6;
  }
  parts.push('Description: %s\nInput: %s\nQ1:');
  return parts.join('');
}
