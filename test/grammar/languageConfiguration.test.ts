// The language configurations (on-enter rules, word patterns, comments) and the manifest entries that point at
// them, the grammars, the snippets and the icons. Highlighting itself is tested by `npm run test:grammar`.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const readJson = (rel: string) => JSON.parse(readFileSync(join(root, rel), 'utf8'));

interface OnEnterRule {
  beforeText: string;
  afterText?: string;
  previousLineText?: string;
  action: { indent: string; appendText?: string };
}

const artConfig = readJson('language-configuration/art.language-configuration.json');
const agentConfig = readJson('language-configuration/agent.language-configuration.json');

/** What VS Code does on Enter: the first rule whose regexes match the text around the cursor. */
function onEnter(rules: OnEnterRule[], line: string, cursor = line.length): string | undefined {
  const before = line.slice(0, cursor);
  const after = line.slice(cursor);
  const rule = rules.find(r => new RegExp(r.beforeText).test(before) && (r.afterText === undefined || new RegExp(r.afterText).test(after)));
  return rule?.action.appendText;
}

describe('.art language configuration', () => {
  const rules = artConfig.onEnterRules as OnEnterRule[];

  test('is generated from art.base.json and generate-art.mjs', () => {
    const r = spawnSync(process.execPath, [join(root, 'language-configuration', 'generate-art.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  test('Enter after a query offers its answer line', () => {
    assert.equal(onEnter(rules, 'Q1: [search] Who wrote Hamlet?'), '#1: ');
    assert.equal(onEnter(rules, 'Q3：[string split] fullwidth colon'), '#3: ');
    assert.equal(onEnter(rules, 'Q12: [generate python code]'), '#12: ');
    assert.equal(onEnter(rules, '  Q12: [x] indented: text, not a query'), undefined);
    assert.equal(onEnter(rules, 'Q30: [x] the last number with a rule'), '#30: ');
  });

  test('Enter after a one-line answer offers the next query', () => {
    assert.equal(onEnter(rules, '#1: Shakespeare'), 'Q2: ');
    assert.equal(onEnter(rules, '#9：nine'), 'Q10: ');
  });

  test('Enter after [EOQ] offers Ans:, after a description offers Input:', () => {
    assert.equal(onEnter(rules, 'Q4: [EOQ]'), 'Ans: ');
    assert.equal(onEnter(rules, 'Q4: [eoq]  '), 'Ans: ');
    assert.equal(onEnter(rules, 'Description: (Task) Do the task.'), 'Input: ');
  });

  test('Enter appends nothing where the next line is not known', () => {
    assert.equal(onEnter(rules, '#1:'), undefined, 'an empty #k: starts a multi-line answer');
    assert.equal(onEnter(rules, 'Q1:'), undefined, 'the template slot has no name');
    assert.equal(onEnter(rules, 'Q1: []'), undefined, 'no name yet');
    assert.equal(onEnter(rules, 'Q1: [search] split here', 'Q1: [search] split'.length), undefined, 'cursor inside the line');
    assert.equal(onEnter(rules, 'Input: some text'), undefined);
    assert.equal(onEnter(rules, 'Ans: 42'), undefined);
    assert.equal(onEnter(rules, 'Q31: [x] past the numbered rules'), undefined);
    assert.equal(onEnter(rules, 'see #1: inside prose'), undefined);
  });

  test('has no line comment and a word pattern that keeps #k and step words whole', () => {
    assert.equal(artConfig.comments, undefined);
    const words = (s: string) => s.match(new RegExp(artConfig.wordPattern, 'g'));
    assert.deepEqual(words('see #12 and step-by-step'), ['see', '#12', 'and', 'step-by-step']);
    assert.deepEqual(words('Q1:[search]'), ['Q1', 'search']);
  });
});

describe('.agent language configuration', () => {
  test('uses ; for line comments and treats state names and flags as words', () => {
    assert.equal(agentConfig.comments.lineComment, ';');
    const words = (s: string) => s.match(new RegExp(agentConfig.wordPattern, 'g'));
    assert.deepEqual(words('(Act-Inp (:flags :env-input))'), ['Act-Inp', ':flags', ':env-input']);
    assert.deepEqual(words('(:text "[Action Input]")'), [':text', 'Action', 'Input']);
  });

  test('indents after an open form and not after a closed one', () => {
    const increase = new RegExp(agentConfig.indentationRules.increaseIndentPattern);
    assert.ok(increase.test('(define react-agent'));
    assert.ok(increase.test('  (:states'));
    assert.ok(!increase.test('    (Ques (:text "[Question]"))'));
    assert.ok(!increase.test('; (a comment'));
  });
});

describe('manifest entries for languages, grammars and snippets', () => {
  const pkg = readJson('package.json');

  test('declares both languages with their extensions, configurations and icons', () => {
    const langs = new Map<string, any>(pkg.contributes.languages.map((l: any) => [l.id, l]));
    assert.deepEqual(langs.get('art')?.extensions, ['.art']);
    assert.deepEqual(langs.get('art-agent')?.extensions, ['.agent']);
    assert.equal(langs.get('art')?.aliases[0], 'ART Task Library');
    assert.equal(langs.get('art-agent')?.aliases[0], 'ART Agent Spec');
    for (const l of langs.values()) {
      assert.ok(existsSync(join(root, l.configuration)), `${l.id}: missing ${l.configuration}`);
      for (const icon of [l.icon.light, l.icon.dark]) assert.ok(existsSync(join(root, icon)), `${l.id}: missing ${icon}`);
    }
  });

  test('points each grammar at a file with its scope, Python embedded in .art', () => {
    const grammars = new Map<string, any>(pkg.contributes.grammars.map((g: any) => [g.language, g]));
    for (const [language, scope] of [['art', 'source.art'], ['art-agent', 'source.art-agent']]) {
      const g = grammars.get(language);
      assert.ok(g, `no grammar for ${language}`);
      assert.equal(g.scopeName, scope);
      assert.equal(readJson(g.path).scopeName, scope);
    }
    assert.equal(grammars.get('art').embeddedLanguages['meta.embedded.block.python'], 'python');
    assert.ok(readFileSync(join(root, grammars.get('art').path), 'utf8').includes('"contentName": "meta.embedded.block.python"'));
  });

  test('points each language at its snippets file', () => {
    const snippets = new Map<string, string>(pkg.contributes.snippets.map((s: any) => [s.language, s.path]));
    for (const language of ['art', 'art-agent']) {
      const path = snippets.get(language);
      assert.ok(path && existsSync(join(root, path)), `no snippets for ${language}`);
      assert.ok(Object.keys(readJson(path)).length > 0);
    }
  });
});
