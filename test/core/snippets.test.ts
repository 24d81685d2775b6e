// Every snippet in snippets/ expands to text the language core accepts: ART snippets (placed where they go in a
// program) have no error diagnostics, agent snippets parse and check clean, and the paper agents are the fixture
// specs (test/fixtures/agents), form for form; the corpus suite checks those against the paper's own.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArt, checkArt, ToolCatalog } from '../../core/art';
import { parseAgentFile, checkAgentFile } from '../../core/agent';
import { fixturePath } from '../support/fixtures';

const root = join(__dirname, '..', '..');
const fixtureAgents = fixturePath('agents');

interface Snippet {
  prefix: string | string[];
  description: string;
  body: string | string[];
}

function loadSnippets(file: string): Map<string, Snippet> {
  const json = JSON.parse(readFileSync(join(root, 'snippets', file), 'utf8')) as Record<string, Snippet>;
  return new Map(Object.entries(json));
}

/** Snippet syntax, the part these files use: $n, ${n}, ${n:default} (nested), ${n|a,b|}, and \$ \} \\ escapes. */
interface Expansion {
  text: string;
  /** Every option of each choice placeholder, by tabstop. */
  choices: Map<number, string[]>;
}

function expand(body: string | string[], pick: (tabstop: number, options: string[]) => string = (_, o) => o[0]): Expansion {
  const src = Array.isArray(body) ? body.join('\n') : body;
  const defaults = new Map<number, string>();
  const choices = new Map<number, string[]>();
  // First pass: learn each tabstop's value from its first ${n:...} or ${n|...|}, so mirrors ($n) can copy it.
  const scan = (s: string): string => {
    let out = '';
    let i = 0;
    while (i < s.length) {
      const c = s[i];
      if (c === '\\' && i + 1 < s.length) {
        out += s[i + 1];
        i += 2;
        continue;
      }
      if (c !== '$') {
        out += c;
        i++;
        continue;
      }
      const simple = /^\$(\d+)/.exec(s.slice(i)) ?? /^\$\{(\d+)\}/.exec(s.slice(i));
      if (simple) {
        out += `\ue000${simple[1]}\ue000`;
        i += simple[0].length;
        continue;
      }
      const choice = /^\$\{(\d+)\|((?:[^|\\]|\\.)*)\|\}/.exec(s.slice(i));
      if (choice) {
        const n = Number(choice[1]);
        const options = choice[2].split(',').map(o => o.replace(/\\(.)/g, '$1'));
        choices.set(n, options);
        const value = pick(n, options);
        if (!defaults.has(n)) defaults.set(n, value);
        out += value;
        i += choice[0].length;
        continue;
      }
      const open = /^\$\{(\d+):/.exec(s.slice(i));
      if (open) {
        // Find the matching } (placeholders nest), honouring escapes.
        let depth = 1;
        let j = i + open[0].length;
        while (j < s.length && depth > 0) {
          if (s[j] === '\\') {
            j += 2;
            continue;
          }
          if (s[j] === '{' && s[j - 1] === '$') depth++;
          else if (s[j] === '}') depth--;
          if (depth > 0) j++;
        }
        assert.ok(depth === 0, `unclosed placeholder in snippet body: ${s.slice(i, i + 40)}`);
        const value = scan(s.slice(i + open[0].length, j));
        const n = Number(open[1]);
        if (!defaults.has(n)) defaults.set(n, value);
        out += value;
        i = j + 1;
        continue;
      }
      assert.fail(`unsupported snippet syntax at: ${s.slice(i, i + 20)}`);
    }
    return out;
  };
  const scanned = scan(src);
  const text = scanned.replace(/\ue000(\d+)\ue000/g, (_, n: string) => defaults.get(Number(n)) ?? '');
  return { text, choices };
}

function errorsOf(diags: { severity: string; code: string; message: string }[]): string[] {
  return diags.filter(d => d.severity === 'error').map(d => `${d.code}: ${d.message}`);
}

function checkArtText(text: string): string[] {
  return errorsOf(checkArt(parseArt(text)));
}

/** Where each ART snippet goes: `@` is replaced by the snippet's text. A new snippet must say where it goes. */
const PROGRAM_A =
  'Description: (Sample task) Answer the question.\nInput: What is 2 + 2?\nQ1: [think step-by-step]\n#1: 2 + 2 is 4.\nQ2: [EOQ]\nAns: 4';
const PROGRAM_B =
  'Description: (Other task) Repeat the input.\nInput: hello\nQ1: [string split] What are the words in "hello"?\n#1: ["hello"]\nQ2: [EOQ]\nAns: hello';
const ART_CONTEXTS: Record<string, string> = {
  'ART program': '@',
  'ART prompt template': '@',
  'ART step': 'Input: What is 2 + 2?\nQ1: [think step-by-step]\n#1: 2 + 2 is 4.\n@\nQ3: [EOQ]\nAns: 4',
  'ART tool step': 'Input: What is 2 + 2?\nQ1: [think step-by-step]\n#1: 2 + 2 is 4.\n@\nQ3: [EOQ]\nAns: 4',
  'ART code steps': 'Input: What is 1 + 1?\n@\nQ3: [EOQ]\nAns: 2',
  'ART end of queries': 'Input: What is 2 + 2?\nQ1: [think step-by-step]\n#1: 2 + 2 is 4.\nQ2: [compare] Is #1 right?\n#2: yes\n@',
  'ART separator': `${PROGRAM_A}\n@\n${PROGRAM_B}`,
  'MultiTool-CoT trigger': 'Input: What is 3 * 4?\nQ1: [think step-by-step]\n#1: 3 * 4 @ 12\nQ2: [EOQ]\nAns: 12',
};

const PAPER_AGENTS: Record<string, string> = {
  'ReACT agent': 'react.agent',
  'ReWOO agent': 'rewoo.agent',
  'Reflexion agent': 'reflexion.agent',
  'PASS agent': 'pass.agent',
  'CoT agent': 'cot.agent',
  'Direct agent': 'direct.agent',
};

describe('ART snippets', () => {
  const snippets = loadSnippets('art.code-snippets');

  test('every snippet has a prefix, a description and a context in this test', () => {
    assert.ok(snippets.size >= 6, `expected the ART snippets, found ${snippets.size}`);
    for (const [name, s] of snippets) {
      assert.ok(s.prefix.length > 0, `${name}: no prefix`);
      assert.ok(s.description.length > 0, `${name}: no description`);
      assert.ok(name in ART_CONTEXTS, `${name}: add where it goes to ART_CONTEXTS`);
    }
  });

  for (const [name, s] of snippets) {
    test(`${name} expands to a program without errors`, () => {
      const context = ART_CONTEXTS[name];
      assert.ok(context, `${name}: no context`);
      const { text: body, choices } = expand(s.body);
      const text = context.replace('@', body);
      assert.deepEqual(checkArtText(text), [], `errors in:\n${text}`);
      // Each choice gives a valid program too (a tool step with every tool).
      for (const [n, options] of choices) {
        for (const option of options.slice(1)) {
          const alt = context.replace('@', expand(s.body, (m, o) => (m === n ? option : o[0])).text);
          assert.deepEqual(checkArtText(alt), [], `errors with choice ${option}:\n${alt}`);
        }
      }
    });
  }

  test('the new program has a task name, an input, a step and [EOQ] with Ans', () => {
    const doc = parseArt(expand(snippets.get('ART program')!.body).text);
    assert.equal(doc.programs.length, 1);
    const p = doc.programs[0];
    assert.equal(p.description?.taskName, 'Task name');
    assert.ok(p.input);
    assert.deepEqual(
      p.steps.map(s => [s.number, s.isEoq]),
      [
        [1, false],
        [2, true],
      ],
    );
    assert.ok(p.steps[0].answer);
    assert.ok(p.ans);
  });

  test('the prompt template is read as the template', () => {
    const doc = parseArt(expand(snippets.get('ART prompt template')!.body).text);
    assert.equal(doc.programs.length, 1);
    assert.equal(doc.programs[0].template, true);
  });

  test('every tool offered by the tool step is a built-in tool', () => {
    const { choices } = expand(snippets.get('ART tool step')!.body);
    const options = [...choices.values()].flat();
    assert.ok(options.length >= 10, `expected the ART tool names, got ${options.join(', ')}`);
    const catalog = new ToolCatalog();
    for (const o of options) assert.ok(catalog.has(o), `${o} is not a built-in tool`);
  });

  test('the step snippets mirror the step number into the answer', () => {
    for (const name of ['ART step', 'ART tool step']) {
      const text = ART_CONTEXTS[name].replace('@', expand(snippets.get(name)!.body).text);
      const step = parseArt(text).programs[0].steps[1];
      assert.equal(step.number, 2, name);
      assert.equal(step.answer?.number, 2, name);
    }
  });
});

describe('agent snippets', () => {
  const snippets = loadSnippets('agent.code-snippets');

  test('there is a snippet for each paper agent', () => {
    for (const name of Object.keys(PAPER_AGENTS)) assert.ok(snippets.has(name), `missing snippet ${name}`);
  });

  for (const [name, s] of snippets) {
    test(`${name} parses and checks without errors`, () => {
      let text = expand(s.body).text;
      // Fragments (a state, a formula) go where they belong in an agent.
      if (!text.includes('(define')) {
        text = text.includes(':text')
          ? `(define sample (:states (Q (:text "[Question]")) ${text}) (:behavior (next Q ${text.match(/^\((\S+)/)![1]})))`
          : `(define sample (:states (A (:text "[A]")) (B (:text "[B]"))) (:behavior (next A ${text})))`;
      }
      const file = parseAgentFile(text);
      assert.equal(file.agents.length, 1, text);
      assert.deepEqual(errorsOf(checkAgentFile(file)), [], `errors in:\n${text}`);
      assert.deepEqual(
        file.problems.map(p => p.message),
        [],
        text,
      );
    });
  }

  for (const [name, file] of Object.entries(PAPER_AGENTS)) {
    test(`${name} is the fixture spec ${file}`, () => {
      const path = join(fixtureAgents, file);
      assert.ok(existsSync(path), `fixture file missing: ${path}`);
      const normalize = (t: string) => t.replace(/;.*$/gm, '').replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();
      const snippet = snippets.get(name);
      assert.ok(snippet, `missing snippet ${name}`);
      assert.equal(normalize(expand(snippet.body).text), normalize(readFileSync(path, 'utf8')));
    });
  }
});
