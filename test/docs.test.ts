// The user documents (README.md and docs/) against the code: every diagnostic code core reports is in its language's
// table with its severity, the run options table is what the declaration writes, every relative link and picture
// leads somewhere, and the README keeps the Quick start CI runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { ART_DIAGNOSTIC_CODES } from '../core/art/check';
import { AGENT_DIAGNOSTIC_CODES } from '../core/agent/check';

const ROOT = resolve(__dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter(f => f.endsWith('.md'))
  .map(f => `docs/${f}`);
const USER_DOCUMENTS = ['README.md', ...DOCS];

/** The rows of the first table whose header starts with `| code | severity |`: code → severity. */
function codeTable(path: string): Map<string, string> {
  const lines = read(path).split('\n');
  const start = lines.findIndex(l => /^\|\s*code\s*\|\s*severity\s*\|/.test(l));
  assert.ok(start >= 0, `${path}: no table with the columns "code | severity"`);
  const rows = new Map<string, string>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [code, severity] = line
      .split('|')
      .slice(1, 3)
      .map(c => c.trim());
    const name = /^`([a-z-]+)`$/.exec(code);
    assert.ok(name, `${path}: a row of the code table does not start with one \`code\`: ${line}`);
    assert.ok(!rows.has(name[1]), `${path}: \`${name[1]}\` is listed twice`);
    rows.set(name[1], severity);
  }
  return rows;
}

/** What is wrong with the code table of the page at `path` (relative to the checkout) against core's codes. */
function codeTableProblems(path: string, codes: Readonly<Record<string, string>>): string[] {
  const table = codeTable(path);
  const problems: string[] = [];
  for (const [code, severity] of Object.entries(codes)) {
    if (!table.has(code)) problems.push(`${path}: add \`${code}\` (${severity}) to its table of diagnostic codes`);
    else if (table.get(code) !== severity) problems.push(`${path}: \`${code}\` is ${severity}, not ${table.get(code)}`);
  }
  for (const code of table.keys()) if (!(code in codes)) problems.push(`${path}: core reports no \`${code}\`: take it out of the table`);
  return problems;
}

describe('diagnostic codes in the docs', () => {
  test('docs/art-language.md lists every code core reports for .art files, with its severity, and no other', () => {
    assert.deepEqual(codeTableProblems('docs/art-language.md', ART_DIAGNOSTIC_CODES), []);
  });

  test('docs/agent-language.md lists every code core reports for .agent files, with its severity, and no other', () => {
    assert.deepEqual(codeTableProblems('docs/agent-language.md', AGENT_DIAGNOSTIC_CODES), []);
  });

  test('a page that lacks a code, gets a severity wrong or lists an unknown code is found out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-docs-'));
    const page = read('docs/art-language.md')
      .replace(/^\| `empty-answer` .*\n/m, '')
      .replace('| `missing-ans` | error |', '| `missing-ans` | warning |')
      .replace(/^(\| `missing-input` .*\n)/m, '$1| `no-such-code` | error | never | |\n');
    writeFileSync(join(dir, 'page.md'), page);
    const path = relative(ROOT, join(dir, 'page.md'));
    assert.deepEqual(codeTableProblems(path, ART_DIAGNOSTIC_CODES), [
      `${path}: \`missing-ans\` is error, not warning`,
      `${path}: add \`empty-answer\` (warning) to its table of diagnostic codes`,
      `${path}: core reports no \`no-such-code\`: take it out of the table`,
    ]);
  });
});

describe('the run options table of docs/cli.md', () => {
  const generator = join(ROOT, 'scripts/gen-manifest.mjs');
  const check = (...extra: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', generator, '--check', ...extra], { cwd: ROOT, encoding: 'utf8' });

  test('is what npm run gen:manifest writes from the declaration', () => {
    const r = check();
    assert.equal(r.status, 0, r.stderr);
  });

  test('the freshness check fails on a page whose table lags the declaration, naming the page and the fix', () => {
    const dir = mkdtempSync(join(tmpdir(), 'art-docs-'));
    const page = join(dir, 'cli.md');
    const current = read('docs/cli.md');
    assert.match(current, /\| `--temperature N` \|/);
    writeFileSync(page, current.replace(/^\| `temperature` .*\n/m, ''));
    const r = check(`--docs=${page}`);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /cli\.md is out of date with the run options \(.+options\.ts\): run npm run gen:manifest/);
    writeFileSync(page, current.replace('<!-- run-options: end -->', ''));
    assert.match(check(`--docs=${page}`).stderr, /the markers of the run options table are missing/);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(path: string): Set<string> {
  const text = read(path).replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(m => anchor(m[1])));
}

describe('the user documents', () => {
  test('every relative link and picture leads to a file that exists, and every #anchor to a heading', () => {
    const broken: string[] = [];
    for (const doc of USER_DOCUMENTS) {
      const text = read(doc).replace(/^```[\s\S]*?^```/gm, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [path, hash] = target.split('#');
        const file = path ? relative(ROOT, resolve(dirname(join(ROOT, doc)), path)) : doc;
        if (!existsSync(join(ROOT, file))) broken.push(`${doc}: ${target} (no file ${file})`);
        else if (hash !== undefined && file.endsWith('.md') && !anchorsOf(file).has(hash)) broken.push(`${doc}: ${target} (no heading for #${hash})`);
      }
    }
    assert.deepEqual(broken, []);
  });

  test('every picture of images/screenshots/ is shown somewhere', () => {
    const all = USER_DOCUMENTS.map(read).join('\n');
    const unused = readdirSync(join(ROOT, 'images/screenshots')).filter(f => f.endsWith('.png') && !all.includes(`images/screenshots/${f}`));
    assert.deepEqual(unused, []);
  });

  test('the README keeps its Quick start: the two lines, the second the one CI runs', () => {
    const readme = read('README.md');
    const section = /^## Quick start\n([\s\S]*?)^## /m.exec(readme);
    assert.ok(section, 'README.md: no "## Quick start" section');
    const lines = /```sh\n([\s\S]*?)```/.exec(section[1])![1].trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[0], /^npm ci --no-audit --no-fund && npm start\s+#/);
    assert.match(lines[1], /^npm ci --no-audit --no-fund && npm run test:all\s+#/);
    assert.match(read('.ci/run'), /^npm ci --no-audit --no-fund && npm run test:all$/m);
  });

  test('no internal issue numbers, and nothing that sends a user outside the checkout', () => {
    const found: string[] = [];
    for (const doc of USER_DOCUMENTS) {
      read(doc)
        .split('\n')
        .forEach((line, i) => {
          if (/\bissues? \d|\(#\d+\)/i.test(line)) found.push(`${doc}:${i + 1}: an issue number: ${line.trim()}`);
          if (/DESIGN\.md|shared folder|\.\.\/shared\b/.test(line)) found.push(`${doc}:${i + 1}: outside the checkout: ${line.trim()}`);
        });
    }
    assert.deepEqual(found, []);
  });
});
