// Speaks LSP to the real built server (dist/server.js --stdio) on fixture files and broken variants of them.
import { programsOf, type ProgramsResult } from '../../server/protocol';
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type {
  CodeAction,
  CompletionList,
  Diagnostic,
  DocumentSymbol,
  FoldingRange,
  Hover,
  Location,
  MarkupContent,
  Position,
  SemanticTokens,
  TextEdit,
} from 'vscode-languageserver-protocol';
import { FIXTURES, LspClient, fileUri } from './lspClient';
import { until } from '../support/until';

const read = (rel: string) => readFileSync(join(FIXTURES, rel), 'utf8');
const ARITHMETIC = read('programs/arithmetic.art');
const STRINGS = read('programs/string-operations.art');
const REACT = read('agents/react.agent');

/** Position of the `nth` occurrence of `needle` (plus `delta` characters). */
function at(text: string, needle: string, delta = 0, nth = 0): Position {
  let i = -1;
  for (let k = 0; k <= nth; k++) {
    i = text.indexOf(needle, i + 1);
    if (i < 0) throw new Error(`'${needle}' not in text`);
  }
  return TextDocument.create('x', 'x', 0, text).positionAt(i + delta);
}

const lineOf = (text: string, needle: string) => at(text, needle).line;
const codes = (ds: Diagnostic[]) => ds.map(d => d.code).sort();
const apply = (text: string, edits: TextEdit[]) => TextDocument.applyEdits(TextDocument.create('x', 'art', 0, text), edits);
const hoverText = (h: Hover | null) => (h ? (h.contents as MarkupContent).value : '');

let client: LspClient;
let n = 0;
const uri = (name: string) => fileUri(join(FIXTURES, `test-${++n}-${name}`));

before(async () => {
  client = await LspClient.start({ settings: { diagnostics: { debounceMs: 0 } } });
});
after(async () => {
  await client?.stop();
});

describe('initialize', () => {
  test('announces every feature', () => {
    const caps = client.initializeResult.capabilities;
    assert.ok(caps.completionProvider?.triggerCharacters?.includes('['));
    assert.ok(caps.completionProvider?.triggerCharacters?.includes('#'));
    for (const k of [
      'hoverProvider',
      'definitionProvider',
      'referencesProvider',
      'documentSymbolProvider',
      'foldingRangeProvider',
      'documentFormattingProvider',
      'codeActionProvider',
    ] as const) {
      assert.ok(caps[k], k);
    }
    assert.deepEqual(caps.semanticTokensProvider?.legend.tokenTypes, ['function', 'label', 'enumMember']);
    assert.equal(client.initializeResult.serverInfo?.name, 'art-language-server');
  });
});

describe('.art diagnostics', () => {
  test('a fixture library checks clean, published for the opened version', async () => {
    const u = uri('arithmetic.art');
    const p = await client.open(u, ARITHMETIC);
    assert.equal(p.version, 1);
    assert.deepEqual(p.diagnostics, []);
  });

  test('a broken program: code, source, smallest range; a change that fixes it clears it', async () => {
    const broken = ARITHMETIC.replace('Q2: [code execute] Execute the python code in #1', 'Q3: [code execute] Execute the python code in #1');
    const u = uri('broken.art');
    const p = await client.open(u, broken);
    const d = p.diagnostics.find(x => x.code === 'step-out-of-order');
    assert.ok(d, JSON.stringify(p.diagnostics));
    assert.equal(d.source, 'art');
    assert.equal(d.severity, 1);
    assert.equal(d.range.start.line, lineOf(broken, 'Q3: [code execute]'));
    assert.equal(d.range.end.line, d.range.start.line);

    const where = at(broken, 'Q3: [code execute]', 1);
    const fixed = await client.change(u, 2, [{ range: { start: where, end: { line: where.line, character: where.character + 1 } }, text: '2' }]);
    assert.equal(fixed.version, 2);
    assert.ok(!fixed.diagnostics.some(x => x.code === 'step-out-of-order'), JSON.stringify(fixed.diagnostics));
  });

  test('several edits in a row: the last version is published, and is right', async () => {
    const u = uri('burst.art');
    await client.open(u, STRINGS);
    const line = lineOf(STRINGS, '#1: 03/10/2022');
    // Delete the `#1:` line in three quick edits (versions 2..4) without waiting in between.
    const sends = [2, 3, 4].map(v =>
      client.notify('textDocument/didChange', {
        textDocument: { uri: u, version: v },
        contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: v === 4 ? 1000 : 1 } }, text: '' }],
      }),
    );
    await Promise.all(sends);
    const last = await client.waitForDiagnostics(u, 4);
    assert.ok(
      last.diagnostics.some(x => x.code === 'missing-answer'),
      JSON.stringify(last.diagnostics),
    );
  });

  test('a document sent with another language id is accepted by its extension; other files are ignored', async () => {
    const u = uri('plain.art');
    const p = await client.open(u, 'Input: x\nQ1: [search] y\nQ2: [EOQ]\nAns: z\n', 'plaintext');
    assert.deepEqual(codes(p.diagnostics), ['missing-answer']);
    const other = fileUri(join(FIXTURES, 'notes.txt'));
    await client.notify('textDocument/didOpen', { textDocument: { uri: other, languageId: 'plaintext', version: 1, text: 'Q2: [x]' } });
    const h = await client.request<Hover | null>('textDocument/hover', { textDocument: { uri: other }, position: { line: 0, character: 5 } });
    assert.equal(h, null);
  });
});

describe('settings and status', () => {
  test('art/documentStatus counts programs (not the template) and errors of each published version', async () => {
    const u = uri('status.art');
    const broken = ARITHMETIC.replace('Q2: [code execute] Execute the python code in #1', 'Q3: [code execute] Execute the python code in #1');
    const published = await client.open(u, broken);
    const errors = published.diagnostics.filter(d => d.severity === 1).length;
    assert.ok(errors >= 1);
    // Sent right after the diagnostics of the same version.
    await until(() => client.statuses.some(s => s.uri === u), { what: `the art/documentStatus of ${u}` });
    const status = client.statuses.find(s => s.uri === u && s.version === 1);
    assert.ok(status);
    assert.deepEqual([status.language, status.units, status.errors], ['art', 2, errors]);
  });

  test('debounce: quick edits publish only the last version; disabling diagnostics clears them', async () => {
    const slow = await LspClient.start({ settings: { diagnostics: { debounceMs: 300 } } });
    try {
      const u = uri('debounce.art');
      await slow.open(u, STRINGS);
      for (const v of [2, 3, 4]) {
        await slow.notify('textDocument/didChange', {
          textDocument: { uri: u, version: v },
          contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'x' }],
        });
      }
      await slow.waitForDiagnostics(u, 4);
      assert.deepEqual(
        slow.diagnostics.filter(p => p.uri === u).map(p => p.version),
        [1, 4],
      );

      const broken = STRINGS.replace('#2: Today is 03/07/2022\n', '');
      const u2 = uri('disabled.art');
      assert.ok((await slow.open(u2, broken)).diagnostics.length > 0);
      slow.settings = { diagnostics: { enable: false } };
      const cleared = slow.waitForPublish(p => p.uri === u2 && p.diagnostics.length === 0, 'cleared diagnostics');
      await slow.notify('workspace/didChangeConfiguration', { settings: null });
      await cleared;
    } finally {
      await slow.stop();
    }
  });
});

describe('.art code actions', () => {
  test('renumber is a preferred quick fix; applying it makes the file clean', async () => {
    const broken = ARITHMETIC.replace('Q2: [code execute] Execute the python code in #1', 'Q3: [code execute] Execute the python code in #1');
    const u = uri('fix.art');
    const p = await client.open(u, broken);
    const d = p.diagnostics.find(x => x.code === 'step-out-of-order')!;
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: u },
      range: d.range,
      context: { diagnostics: [d] },
    });
    const fix = actions.find(a => a.isPreferred && a.kind === 'quickfix');
    assert.ok(fix, JSON.stringify(actions.map(a => a.title)));
    assert.equal(fix.diagnostics?.[0].code, 'step-out-of-order');
    const text = apply(broken, fix.edit!.changes![u]);
    const u2 = uri('fixed.art');
    const clean = await client.open(u2, text);
    assert.deepEqual(clean.diagnostics, []);
  });

  test('a tool-name typo offers the tool name', async () => {
    const broken = ARITHMETIC.replace('[code execute]', '[code exectue]');
    const u = uri('typo.art');
    const p = await client.open(u, broken);
    const d = p.diagnostics.find(x => x.code === 'tool-name-typo');
    assert.ok(d, JSON.stringify(p.diagnostics));
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: u },
      range: d.range,
      context: { diagnostics: [d] },
    });
    const texts = actions.flatMap(a => a.edit?.changes?.[u] ?? []).map(e => e.newText);
    assert.ok(
      texts.some(t => t.includes('code execute')),
      JSON.stringify(actions),
    );
  });

  test('a missing `#k:` can be added, and there is nothing to fix on a clean line', async () => {
    const broken = STRINGS.replace('#2: Today is 03/07/2022\n', '');
    const u = uri('missing.art');
    const p = await client.open(u, broken);
    const d = p.diagnostics.find(x => x.code === 'missing-answer')!;
    assert.ok(d);
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: u },
      range: d.range,
      context: { diagnostics: [d] },
    });
    const added = actions.flatMap(a => a.edit?.changes?.[u] ?? []).map(e => e.newText);
    assert.ok(
      added.some(t => t.includes('#2:')),
      JSON.stringify(actions),
    );
    const none = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: u },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
      context: { diagnostics: [] },
    });
    assert.deepEqual(none, []);
  });
});

describe('.art completion, hover, navigation', () => {
  const u = fileUri(join(FIXTURES, 'test-nav-arithmetic.art'));
  before(async () => {
    await client.open(u, ARITHMETIC);
  });

  test('after `[`: tools first with their description, then sub-step names of the file, then EOQ', async () => {
    const v = `${ARITHMETIC}\n----\nInput: banana\nQ1: [`;
    const w = fileUri(join(FIXTURES, 'test-nav-new-step.art'));
    await client.open(w, v);
    const list = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri: w },
      position: at(v, 'banana\nQ1: [', 'banana\nQ1: ['.length),
      context: { triggerKind: 2, triggerCharacter: '[' },
    });
    const sorted = [...list.items].sort((a, b) => (a.sortText ?? a.label).localeCompare(b.sortText ?? b.label));
    const labels = sorted.map(i => i.label);
    const search = sorted.find(i => i.label === 'search')!;
    assert.ok(search, labels.join(','));
    assert.match((search.documentation as MarkupContent).value, /search/i);
    assert.equal(search.kind, 3 /* Function */);
    const firstSubStep = labels.indexOf('compare');
    assert.ok(firstSubStep > labels.indexOf('code execute') && firstSubStep > labels.indexOf('search'), labels.join(','));
    assert.equal(labels[labels.length - 1], 'EOQ');
  });

  test('inside a name, the completion replaces the whole name through its `]`, so the cursor lands after it', async () => {
    const pos = at(ARITHMETIC, '[code execute]', 5);
    const list = await client.request<CompletionList>('textDocument/completion', { textDocument: { uri: u }, position: pos });
    const item = list.items.find(i => i.label === 'code execute')!;
    const edit = item.textEdit as TextEdit;
    assert.equal(apply(ARITHMETIC, [edit]), ARITHMETIC);
    assert.equal(edit.range.end.character, at(ARITHMETIC, '[code execute]', '[code execute]'.length).character);
  });

  test('in an empty `[]` at the end of a line (the editor closed the bracket), the name and `]` go in, no space (typing adds it)', async () => {
    const v = `${ARITHMETIC}\n----\nInput: banana\nQ1: [cod]`;
    const w = fileUri(join(FIXTURES, 'test-nav-typing.art'));
    await client.open(w, v);
    const pos = at(v, 'Q1: [cod]', 'Q1: [cod'.length);
    const list = await client.request<CompletionList>('textDocument/completion', { textDocument: { uri: w }, position: pos });
    const item = list.items.find(i => i.label === 'code execute')!;
    assert.equal(apply(v, [item.textEdit as TextEdit]), `${ARITHMETIC}\n----\nInput: banana\nQ1: [code execute]`);
    // The half-typed name is not offered as a sub-step of the file (Enter would keep the misspelling).
    assert.ok(!list.items.some(i => i.label === 'cod'), JSON.stringify(list.items.map(i => i.label)));
  });

  test('`#` in an instruction: the answers before it in the same program', async () => {
    const pos = at(ARITHMETIC, 'in #1 and get', 4);
    const list = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri: u },
      position: pos,
      context: { triggerKind: 2, triggerCharacter: '#' },
    });
    assert.deepEqual(
      list.items.map(i => i.label),
      ['#1'],
    );
  });

  test('at a line start: the next line of the program', async () => {
    // After `#2:` of the first program (before Q3).
    const pos = at(ARITHMETIC, 'Q3: [compare]');
    const list = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri: u },
      position: pos,
      context: { triggerKind: 1 },
    });
    assert.ok(
      list.items.some(i => i.label === 'Q3:'),
      JSON.stringify(list.items.map(i => i.label)),
    );
    const eoq = list.items.find(i => i.label === 'Q3: [EOQ]');
    assert.ok(eoq);
  });

  test('hover: a tool, a model sub-step, a reference', async () => {
    const tool = await client.request<Hover>('textDocument/hover', { textDocument: { uri: u }, position: at(ARITHMETIC, '[code execute]', 3) });
    assert.match(hoverText(tool), /code execute/);
    assert.match(hoverText(tool), /tool/);
    const sub = await client.request<Hover>('textDocument/hover', { textDocument: { uri: u }, position: at(ARITHMETIC, '[compare]', 2) });
    assert.match(hoverText(sub), /sub-step answered by the model/);
    const ref = await client.request<Hover>('textDocument/hover', { textDocument: { uri: u }, position: at(ARITHMETIC, 'in #1 and get', 4) });
    assert.match(hoverText(ref), /solve_it\(usual_speed/);
  });

  test('definition of `#1` is its answer line; references of `#1:` include the mention', async () => {
    const locs = await client.request<Location | Location[]>('textDocument/definition', {
      textDocument: { uri: u },
      position: at(ARITHMETIC, 'in #1 and get', 4),
    });
    const loc = Array.isArray(locs) ? locs[0] : locs;
    assert.equal(loc.range.start.line, lineOf(ARITHMETIC, '#1:'));
    const refs = await client.request<Location[]>('textDocument/references', {
      textDocument: { uri: u },
      position: at(ARITHMETIC, '#1:', 1),
      context: { includeDeclaration: false },
    });
    assert.deepEqual(
      refs.map(r => r.range.start.line),
      [lineOf(ARITHMETIC, 'in #1 and get')],
    );
  });

  test('outline: programs by task name with their steps', async () => {
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: u } });
    assert.deepEqual(
      symbols.slice(0, 2).map(s => s.name),
      ['Aqua-rat', 'Elementary Math'],
    );
    assert.deepEqual(
      symbols[0].children?.map(c => c.name),
      ['Q1: [generate python code]', 'Q2: [code execute]', 'Q3: [compare]', 'Q4: [EOQ]'],
    );
  });

  test('folding: programs and multi-line answers', async () => {
    const ranges = await client.request<FoldingRange[]>('textDocument/foldingRange', { textDocument: { uri: u } });
    const firstProgram = lineOf(ARITHMETIC, 'Description: (Aqua-rat)');
    assert.ok(
      ranges.some(r => r.startLine === firstProgram && r.kind === 'region'),
      JSON.stringify(ranges.slice(0, 5)),
    );
    assert.ok(ranges.some(r => r.startLine === lineOf(ARITHMETIC, '#1:') && r.endLine > r.startLine));
  });

  test('semantic tokens tell a tool from a model sub-step', async () => {
    const tokens = await client.request<SemanticTokens>('textDocument/semanticTokens/full', { textDocument: { uri: u } });
    const decoded: { line: number; char: number; length: number; type: number }[] = [];
    let line = 0;
    let char = 0;
    for (let i = 0; i < tokens.data.length; i += 5) {
      line += tokens.data[i];
      char = tokens.data[i] === 0 ? char + tokens.data[i + 1] : tokens.data[i + 1];
      decoded.push({ line, char, length: tokens.data[i + 2], type: tokens.data[i + 3] });
    }
    const nameAt = (needle: string) => decoded.find(d => d.line === lineOf(ARITHMETIC, needle));
    assert.equal(nameAt('[code execute]')?.type, 0); // function
    assert.equal(nameAt('[compare]')?.type, 1); // label
    assert.equal(nameAt('[compare]')?.length, 'compare'.length);
  });

  test('art/programs lists each program, and says why the template and a program without Input cannot run', async () => {
    const r = await client.request<ProgramsResult>('art/programs', { textDocument: { uri: u } });
    const units = programsOf(r);
    assert.equal(units[0].title, 'Aqua-rat');
    assert.equal(units[0].kind, 'program');
    assert.equal(units[0].notRunnable, undefined);
    assert.equal(units[0].headerLine, lineOf(ARITHMETIC, 'Description: (Aqua-rat)'));
    assert.deepEqual(units[0].range.start, { line: lineOf(ARITHMETIC, 'Description: (Aqua-rat)'), character: 0 });
    assert.match(units[units.length - 1].notRunnable ?? '', /template/);
    assert.equal(r.positions.length, 5 * r.titles.length);
    const w = uri('no-input.art');
    await client.open(w, 'Description: (Toy) no input here\nQ1: [EOQ]\nAns: 1\n');
    const n = programsOf(await client.request<ProgramsResult>('art/programs', { textDocument: { uri: w } }));
    assert.match(n[0].notRunnable ?? '', /no `Input:`/);
    assert.deepEqual(n[0].range, { start: { line: 0, character: 0 }, end: { line: 2, character: 6 } });
  });

  test('art/programs lists the agents of a spec', async () => {
    const w = uri('two.agent');
    await client.open(
      w,
      '(define A (:states (Q (:text "[Q]"))) (:behavior (next Q)))\n(define B (:states (Q (:text "[Q]"))) (:behavior (next Q)))\n',
      'art-agent',
    );
    const r = await client.request<ProgramsResult>('art/programs', { textDocument: { uri: w } });
    assert.deepEqual(
      programsOf(r).map(p => [p.kind, p.title, p.index, p.headerLine]),
      [
        ['agent', 'A', 0, 0],
        ['agent', 'B', 1, 1],
      ],
    );
  });
});

describe('.art formatting', () => {
  test('normalises `Qk: [name]` spacing and leaves answers alone', async () => {
    const messy = 'Input: x\nQ1:[ code   execute ]run it\n#1:   a  b\nQ2:  [EOQ]\nAns:18\n';
    const u = uri('fmt.art');
    await client.open(u, messy);
    const edits = await client.request<TextEdit[]>('textDocument/formatting', {
      textDocument: { uri: u },
      options: { tabSize: 2, insertSpaces: true },
    });
    assert.equal(apply(messy, edits), 'Input: x\nQ1: [code execute] run it\n#1: a  b\nQ2: [EOQ]\nAns: 18\n');
  });
});

describe('.agent', () => {
  test('the ReACT spec checks clean; its outline lists the agent with its states', async () => {
    const u = uri('react.agent');
    const p = await client.open(u, REACT, 'art-agent');
    assert.deepEqual(p.diagnostics, []);
    const symbols = await client.request<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: u } });
    assert.equal(symbols[0].name, 'react-agent');
    assert.deepEqual(
      symbols[0].children?.map(c => c.name),
      ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Final-Tht', 'Ans', 'behavior'],
    );
  });

  test('an unknown state: diagnostic, a fix that adds it to :states', async () => {
    const broken = REACT.replace('Final-Tht)\n          Ans)', 'Final-Tht)\n          Answer)');
    assert.notEqual(broken, REACT);
    const u = uri('broken.agent');
    const p = await client.open(u, broken, 'art-agent');
    const d = p.diagnostics.find(x => x.code === 'unknown-state');
    assert.ok(d, JSON.stringify(p.diagnostics));
    assert.equal(d.range.start.line, lineOf(broken, 'Answer)'));
    const actions = await client.request<CodeAction[]>('textDocument/codeAction', {
      textDocument: { uri: u },
      range: d.range,
      context: { diagnostics: [d] },
    });
    assert.ok(actions.length > 0);
    const add = actions.find(a => /state/i.test(a.title) && (a.edit?.changes?.[u] ?? []).some(e => e.newText.includes('(Answer')));
    assert.ok(add, JSON.stringify(actions.map(a => a.title)));
  });

  test('hover, definition and references of a state; completion of states in the behavior', async () => {
    const u = uri('nav.agent');
    await client.open(u, REACT, 'art-agent');
    const use = at(REACT, 'Act-Inp Obs', 1);
    const h = await client.request<Hover>('textDocument/hover', { textDocument: { uri: u }, position: use });
    assert.match(hoverText(h), /\[Action Input\]/);
    const def = await client.request<Location | Location[]>('textDocument/definition', { textDocument: { uri: u }, position: use });
    const loc = Array.isArray(def) ? def[0] : def;
    assert.equal(loc.range.start.line, lineOf(REACT, '(Act-Inp (:text'));
    const obs = await client.request<Hover>('textDocument/hover', { textDocument: { uri: u }, position: at(REACT, '(Obs (:text', 2) });
    assert.match(hoverText(obs), /env-input/);
    const refs = await client.request<Location[]>('textDocument/references', {
      textDocument: { uri: u },
      position: at(REACT, '(Tht (:text', 2),
      context: { includeDeclaration: true },
    });
    assert.equal(refs.length, 2);

    const pos = at(REACT, 'Act-Inp Obs)', 'Act-Inp Obs'.length);
    const list = await client.request<CompletionList>('textDocument/completion', {
      textDocument: { uri: u },
      position: pos,
      context: { triggerKind: 1 },
    });
    const labels = list.items.map(i => i.label);
    assert.ok(labels.includes('Final-Tht') && labels.includes('Ques'), labels.join(','));
  });

  test('formatting lays out a squashed spec like the corpus', async () => {
    const squashed = REACT.replace(/\n\s+/g, ' ');
    const u = uri('fmt.agent');
    await client.open(u, squashed, 'art-agent');
    const edits = await client.request<TextEdit[]>('textDocument/formatting', {
      textDocument: { uri: u },
      options: { tabSize: 2, insertSpaces: true },
    });
    const out = apply(squashed, edits);
    assert.ok(out.split('\n').length > 5, out);
    assert.match(out, /^\s+\(:states$/m);
  });
});

describe('robustness', () => {
  test('requests on unknown documents and bad positions answer null, and the server lives on', async () => {
    const nowhere = fileUri('/nonexistent/x.art');
    assert.equal(await client.request('textDocument/hover', { textDocument: { uri: nowhere }, position: { line: 0, character: 0 } }), null);
    const u = uri('tiny.art');
    await client.open(u, 'Q1: [');
    for (const method of ['textDocument/hover', 'textDocument/completion', 'textDocument/definition']) {
      await client.request(method, { textDocument: { uri: u }, position: { line: 99, character: 99 } });
    }
    const list = await client.request<CompletionList>('textDocument/completion', { textDocument: { uri: u }, position: { line: 0, character: 5 } });
    assert.ok(list.items.length > 0);
    assert.equal(client.process.exitCode, null);
  });
});
