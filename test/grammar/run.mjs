// The TextMate grammar suite: `npm run test:grammar` (= node scripts/build.mjs --grammars-only &&
// node --import tsx test/grammar/run.mjs).
//  1. vscode-tmgrammar-test over every assertion file test/grammar/**/*.test.art and *.test.agent, with the grammars
//     of package.json; python-stub.tmLanguage.json stands in for VS Code's Python grammar, which is not installed
//     here, so the tests assert the embedding (meta.embedded.block.python and where it ends), not Python's own scopes;
//  2. every fixture (test/fixtures) and example file tokenized and read by the language core (parseArt,
//     parseAgentFile): the two must agree on every marker, separator, step name (tool, sub-step, [EOQ]), reference,
//     state, flag and operator, and the tokenizer must report no error;
//  3. every built-in tool name (core/art/knownTools.ts) gets the tool scope.
// Prints `grammar: N passed, N failed` last and exits 1 on any failure.
// `--corpus DIR` runs only part 2, over the .art and .agent files of DIR (the corpus suite, test/corpus, uses it).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL('../..', import.meta.url));
const here = join(root, 'test', 'grammar');
const stub = join(here, 'python-stub.tmLanguage.json');
const cli = require.resolve('vscode-tmgrammar-test/dist/unit.js');
const { createRegistry, loadConfiguration } = require('vscode-tmgrammar-test/dist/common/index.js');

if (!process.execArgv.join(' ').includes('tsx')) {
  console.error('run with: node --import tsx test/grammar/run.mjs (it reads files with the TypeScript core)');
  process.exit(1);
}

const corpusAt = process.argv.indexOf('--corpus');
const corpusDir = corpusAt >= 0 ? process.argv[corpusAt + 1] : undefined;
if (corpusAt >= 0 && !(corpusDir && existsSync(corpusDir))) {
  console.error(`--corpus: no folder ${corpusDir ?? '(none given)'}`);
  process.exit(1);
}

let passed = 0;
let failed = 0;
const pass = (name) => { passed++; console.log(`  ok    ${name}`); };
const fail = (name, why) => { failed++; console.log(`  FAIL  ${name}\n${why.replace(/^/gm, '        ')}`); };

function walk(dir, keep, out = []) {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, keep, out);
    else if (keep(name)) out.push(p);
  }
  return out;
}

// 1. Assertion files, one run of the tool each so a failure names its file.
if (!corpusDir) console.log('assertion files (vscode-tmgrammar-test)');
const cases = corpusDir ? [] : walk(here, (n) => /\.test\.(art|agent)$/.test(n));
if (cases.length === 0 && !corpusDir) fail('assertion files', 'no test/grammar/**/*.test.art or *.test.agent found');
for (const file of cases) {
  // A timeout: a pathological assertion line can make the tool's own regex backtrack for minutes.
  const r = spawnSync(process.execPath, [cli, '-g', stub, relative(root, file)], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.status === 0 && !/grammar not found/.test(out)) pass(relative(root, file));
  else fail(relative(root, file), out || `exit ${r.status}`);
}

// 2. Fixtures and examples (or the corpus), read by the grammar and by the language core: the two must agree on where every marker,
// step name, reference, state and flag is, so highlighting never tells a reader something the checker does not.
const { parseArt, ToolCatalog, BUILTIN_TOOLS } = await import('../../core/art/index.ts');
const { parseAgentFile, stateRefs, KNOWN_FLAGS } = await import('../../core/agent/index.ts');
const { grammars } = loadConfiguration(join(root, 'package.json'), undefined, [stub]);
const registry = createRegistry(grammars);
const art = await registry.loadGrammar('source.art');
const agent = await registry.loadGrammar('source.art-agent');
if (!art || !agent) fail('grammars', 'package.json does not contribute source.art and source.art-agent');

/** Tokenize a text; vscode-textmate reports endless loops and bad rules on the console, which count as errors. */
function tokenize(grammar, text) {
  const errors = [];
  const { error, warn } = console;
  console.error = console.warn = (...a) => errors.push(a.join(' '));
  const lines = [];
  let stack = null;
  let offset = 0;
  try {
    for (const m of text.matchAll(/([^\r\n]*)(\r\n|\r|\n|$)/g)) {
      const r = grammar.tokenizeLine(m[1], stack);
      stack = r.ruleStack;
      lines.push({ start: offset, text: m[1], tokens: r.tokens });
      offset += m[0].length;
      if (m[2] === '') break;
    }
  } catch (e) {
    errors.push(String(e?.stack ?? e));
  } finally {
    console.error = error;
    console.warn = warn;
  }
  /** The scopes of the token at a document offset. */
  const scopesAt = (pos) => {
    let lo = 0;
    let hi = lines.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lines[mid].start <= pos) lo = mid;
      else hi = mid - 1;
    }
    const line = lines[lo];
    const col = pos - line.start;
    return line.tokens.find((t) => t.startIndex <= col && col < t.endIndex)?.scopes ?? [];
  };
  const where = (pos) => {
    const i = lines.findLastIndex((l) => l.start <= pos);
    return `line ${i + 1}: ${JSON.stringify(lines[i].text.slice(0, 50))}`;
  };
  return { lines, errors, stack, scopesAt, where };
}

const EMBEDDED = 'meta.embedded.block.python';
const MARKER_SCOPES = ['keyword.other.description.art', 'keyword.other.input.art', 'keyword.other.query.art', 'keyword.other.answer.art', 'keyword.other.final-answer.art', 'punctuation.separator.program.art'];

function checkArtFile(text) {
  const tk = tokenize(art, text);
  const problems = [...tk.errors];
  const expect = (pos, scope, what, allowEmbedded = false) => {
    const scopes = tk.scopesAt(pos);
    if (!scopes.includes(scope) && !(allowEmbedded && scopes.includes(EMBEDDED)))
      problems.push(`${tk.where(pos)}: the core reads ${what} here; the grammar says ${scopes.slice(1).join(' ') || 'nothing'}`);
    else if (!allowEmbedded && scopes.includes(EMBEDDED)) problems.push(`${tk.where(pos)}: ${what} is inside embedded Python`);
  };
  const doc = parseArt(text);
  const catalog = new ToolCatalog(BUILTIN_TOOLS);
  const markerStarts = new Set();
  const marker = (span, scope, what) => {
    let pos = span.start;
    while (text[pos] === ' ' || text[pos] === '\t') pos++;
    markerStarts.add(pos);
    expect(pos, scope, what);
  };
  for (const sep of doc.separators) marker(sep, 'punctuation.separator.program.art', 'a separator');
  for (const p of doc.programs) {
    if (p.description) marker(p.description.marker, 'keyword.other.description.art', 'Description:');
    if (p.input) marker(p.input.marker, 'keyword.other.input.art', 'Input:');
    for (const step of p.steps) {
      marker(step.marker, 'keyword.other.query.art', `Q${step.number}:`);
      if (step.answer) marker(step.answer.marker, 'keyword.other.answer.art', `#${step.answer.number}:`);
      if (step.name && step.nameSpan && !step.unclosedBracket && step.name.trim()) {
        const pos = step.nameSpan.start + (step.name.length - step.name.trimStart().length);
        if (step.isEoq) expect(pos, 'keyword.control.eoq.art', '[EOQ]');
        else if (catalog.has(step.name)) expect(pos, 'support.function.tool.art', `the tool [${step.name}]`);
        else expect(pos, 'entity.name.function.step.art', `the sub-step [${step.name}]`);
      }
    }
    for (const a of p.strayAnswers) marker(a.marker, 'keyword.other.answer.art', `#${a.number}:`);
    if (p.ans) marker(p.ans.marker, 'keyword.other.final-answer.art', 'Ans:');
    for (const r of p.references) expect(r.span.start, 'variable.other.reference.art', `the reference #${r.number}`, true);
  }
  // The other way round: every line the grammar starts with a marker, the core reads as one.
  for (const line of tk.lines) {
    const first = line.tokens.find((t) => t.endIndex > t.startIndex && line.text.slice(t.startIndex, t.endIndex).trim());
    const scope = first && MARKER_SCOPES.find((s) => first.scopes.includes(s));
    if (scope && !markerStarts.has(line.start + first.startIndex))
      problems.push(`${tk.where(line.start)}: the grammar shows ${scope}; the core reads no marker here`);
  }
  if (doc.preamble && !tk.scopesAt(doc.preamble.span.start).includes('meta.preamble.art')) problems.push('the preamble is not highlighted as one');
  const first = doc.programs[0];
  if (first && tk.scopesAt(first.span.start).includes('meta.preamble.art')) problems.push(`${tk.where(first.span.start)}: the first program is inside the preamble`);
  return problems;
}

function checkAgentText(text) {
  const tk = tokenize(agent, text);
  const problems = [...tk.errors];
  const expect = (span, scope, what) => {
    const scopes = tk.scopesAt(span.start);
    if (!scopes.includes(scope)) problems.push(`${tk.where(span.start)}: the core reads ${what} here; the grammar says ${scopes.slice(1).join(' ') || 'nothing'}`);
  };
  const file = parseAgentFile(text);
  // A syntax error (an unclosed string or list) is recovered from differently by design: the core reads on by
  // structure, the TextMate grammar by line. The agreement is checked on files that read cleanly.
  if (file.problems.some(p => p.code === 'syntax')) return problems;
  for (const c of file.comments) expect(c.span, 'comment.line.semicolon.art-agent', 'a comment');
  for (const a of file.agents) {
    if (a.name) expect(a.nameSpan, 'entity.name.function.agent.art-agent', `the agent ${a.name}`);
    for (const s of a.states) {
      expect(s.nameSpan, 'entity.name.type.state.art-agent', `the state ${s.name}`);
      if (s.textSpan) expect(s.textSpan, 'string.quoted.double.art-agent', `the text of ${s.name}`);
      for (const f of s.flags) expect(f.span, KNOWN_FLAGS.includes(f.name) ? 'constant.language.flag.art-agent' : 'constant.other.flag.art-agent', `the flag :${f.name}`);
    }
    for (const r of stateRefs(a.behavior)) expect(r.span, 'variable.other.state.art-agent', `a use of the state ${r.name}`);
    const ops = (f) => (f && f.kind !== 'state' ? [f, ...f.args.flatMap(ops)] : []);
    for (const op of ops(a.behavior)) expect(op.opSpan, 'keyword.operator.temporal.art-agent', `the operator ${op.kind}`);
  }
  if (file.problems.length === 0) {
    if (!tk.stack.equals(agent.tokenizeLine('', null).ruleStack)) problems.push('a list or string is still open at the end of the file');
    for (const line of tk.lines)
      for (const t of line.tokens)
        if (t.scopes.some((s) => s.startsWith('invalid'))) problems.push(`${tk.where(line.start)}: ${JSON.stringify(line.text.slice(t.startIndex, t.endIndex))} is marked invalid`);
  }
  return problems;
}

const artOrAgent = (n) => /\.(art|agent)$/.test(n);
console.log(corpusDir ? `${corpusDir}: the grammar and the core agree` : 'fixtures and examples: the grammar and the core agree');
const sources = corpusDir ? walk(corpusDir, artOrAgent) : [...walk(join(root, 'test', 'fixtures'), artOrAgent), ...walk(join(root, 'examples'), artOrAgent)];
if (sources.length === 0) fail('sources', `no .art or .agent file in ${corpusDir ?? 'test/fixtures and examples'}`);
for (const file of sources) {
  const text = readFileSync(file, 'utf8');
  const problems = file.endsWith('.art') ? checkArtFile(text) : checkAgentText(text);
  const name = relative(join(root, '..'), file);
  if (problems.length === 0) pass(name);
  else fail(name, problems.slice(0, 10).join('\n') + (problems.length > 10 ? `\n... ${problems.length - 10} more` : ''));
}

// 3. The grammar's tool list against the core's, written as the core accepts them (any case, runs of spaces).
if (corpusDir) {
  console.log(`\ngrammar: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 ? 0 : 1);
}
console.log('tool names');
const untooled = [];
for (const tool of BUILTIN_TOOLS) {
  for (const written of [tool.name, tool.name.toUpperCase(), tool.name.replace(/ /g, '  ')]) {
    const line = `Q1: [${written}] x`;
    const col = line.indexOf(written);
    const t = art.tokenizeLine(line, null).tokens.find((k) => k.startIndex <= col && col < k.endIndex);
    if (!t?.scopes.includes('support.function.tool.art')) untooled.push(written);
  }
}
if (untooled.length === 0) pass(`${BUILTIN_TOOLS.length} built-in tools have the tool scope`);
else fail('built-in tools have the tool scope', `not highlighted as tools: ${untooled.join(', ')}`);

console.log(`\ngrammar: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
