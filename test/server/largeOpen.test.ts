// Opening a large library: the first analysis runs in chunks, and the requests an editor sends on open (outline,
// folding, semantic tokens, the program list, hover) while it runs are answered, from that analysis or by
// cancellation, never left hanging and never by a second analysis; a request on another document is answered
// meanwhile. No timing assertions: only what is answered and in which order.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { CancellationTokenSource, LSPErrorCodes, ResponseError } from 'vscode-languageserver-protocol/node';
import { LspClient, ROOT, fileUri } from './lspClient';

/** A task library of about `bytes` characters, every program different, with one error every 100 programs. */
function largeLibrary(bytes: number): { text: string; programs: number } {
  const parts = ['Break the input down into subtasks, answering each with a tool or yourself.\n'];
  let size = parts[0].length;
  let n = 0;
  for (; size < bytes; n++) {
    const missing = n % 100 === 99; // Q2 without its answer: one error per hundred programs
    const p =
      `Description: (task ${n}) Arithmetic and lookup\nInput: What is ${n} times ${n + 7}, and which word follows "item${n}"?\n` +
      `Q1: [calculator] Compute ${n} * ${n + 7}\n#1: ${n * (n + 7)}\n` +
      `Q2: [lookup] The word after item${n}\n${missing ? '' : `#2: word${n}\n`}` +
      `Q3: [subquestion] Combine #1 and #2 into one answer\n#3: ${n * (n + 7)} and word${n}\n` +
      `Q4: [EOQ]\nAns: ${n * (n + 7)}, word${n}\n----\n`;
    parts.push(p);
    size += p.length;
  }
  return { text: parts.join(''), programs: n };
}

test('requests sent while a large library is first analysed are answered from that analysis or cancelled', { timeout: 120_000 }, async () => {
  const client = await LspClient.start({ settings: { diagnostics: { debounceMs: 0 } } });
  try {
    const small = fileUri(join(ROOT, 'large-open-small.art'));
    await client.open(small, 'Input: x\nQ1: [search] y\n#1: z\nQ2: [EOQ]\nAns: z\n');
    const { text, programs } = largeLibrary(6 * 1024 * 1024);
    const uri = fileUri(join(ROOT, 'large-open.art'));
    const td = { textDocument: { uri } };
    const order: string[] = [];
    const note =
      <T>(name: string) =>
      (r: T) => (order.push(name), r);

    const diagnostics = client.open(uri, text, 'art', 1, 110_000).then(note('diagnostics'));
    // What an editor sends on open, at once, while the analysis has only begun.
    const symbols = client.request<{ name: string; children?: unknown[] }[]>('textDocument/documentSymbol', td).then(note('documentSymbol'));
    const folding = client.request<unknown[]>('textDocument/foldingRange', td).then(note('foldingRange'));
    const tokens = client.request<{ data: number[] }>('textDocument/semanticTokens/full', td).then(note('semanticTokens'));
    const list = client.request<{ version: number; titles: string[]; positions: number[] }>('art/programs', td).then(note('art/programs'));
    const hover = client
      .request<{ contents: { value: string } } | null>('textDocument/hover', { ...td, position: { line: 3, character: 6 } })
      .then(note('hover'));
    // One the editor gives up on (the user scrolled away): cancelled, or answered if the answer was ready.
    const source = new CancellationTokenSource();
    const cancelled = client.connection
      .sendRequest(
        'textDocument/semanticTokens/range',
        { ...td, range: { start: { line: 0, character: 0 }, end: { line: 40, character: 0 } } },
        source.token,
      )
      .then(
        r => ({ answered: r as { data: number[] } }),
        (e: unknown) => ({ error: e }),
      );
    source.cancel();
    // A request on another, small document does not wait for the large analysis.
    const other = client
      .request<{ contents: { value: string } }>('textDocument/hover', { textDocument: { uri: small }, position: { line: 1, character: 6 } })
      .then(note('other hover'));

    const [published, outline, folds, semantic, units, hovered, gaveUp, otherHover] = await Promise.all([
      diagnostics,
      symbols,
      folding,
      tokens,
      list,
      hover,
      cancelled,
      other,
    ]);

    assert.match(otherHover.contents.value, /search/);
    assert.ok(
      order.indexOf('other hover') < order.indexOf('diagnostics'),
      `a request on another document waited for the large analysis: ${order.join(', ')}`,
    );

    // Every answer is about the whole library (version 1), i.e. from the finished analysis, not a prefix of it.
    assert.equal(published.version, 1);
    assert.equal(published.diagnostics.filter(d => d.code === 'missing-answer' || d.severity === 1).length > 0, true);
    assert.equal(units.version, 1);
    assert.equal(units.titles.length, programs);
    assert.equal(units.positions.length, 5 * programs);
    assert.equal(outline.length, programs);
    assert.ok(outline[0].name.length > 0, 'the first program has a name');
    assert.ok(folds.length >= programs, `${folds.length} folding ranges for ${programs} programs`);
    assert.equal(semantic.data.length, programs * 3 * 5, 'three step names (calculator, lookup, subquestion) per program');
    assert.match(hovered?.contents.value ?? '', /calculator/);
    if ('error' in gaveUp) {
      assert.ok(gaveUp.error instanceof ResponseError, String(gaveUp.error));
      assert.equal(gaveUp.error.code, LSPErrorCodes.RequestCancelled);
    } else assert.ok(gaveUp.answered.data.length > 0, 'an answered range request has the step names of lines 0-40');

    // No second analysis was made for the requests: the server logged no error and answers from the same one.
    assert.deepEqual(
      client.logs.filter(l => /error|uncaught/i.test(l)),
      [],
    );
  } finally {
    await client.stop();
  }
});
