// Which language a file is in (core/common/language.ts), the one rule the language server, the launcher, `art` and
// the VS Code runner share.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isSourceLanguage, languageOf } from '../../../core/common/language';
import { languageOf as documentLanguage } from '../../../server/languages';
import { languageOf as cliLanguage } from '../../../core/cli/files';

test('by extension, case-insensitive: .art, .agent, .cot.txt, .jsonl; anything else is no language', () => {
  assert.equal(languageOf('/w/lib.art'), 'art');
  assert.equal(languageOf('/w/Spec.AGENT'), 'agent');
  assert.equal(languageOf('/w/arith.cot.txt'), 'multitool');
  assert.equal(languageOf('/w/run.jsonl'), 'trace');
  assert.equal(languageOf('/w/notes.txt'), undefined);
  assert.equal(languageOf('/w/art'), undefined);
});

test("an editor's language id wins over the extension", () => {
  assert.equal(languageOf('untitled:Untitled-1', 'art'), 'art');
  assert.equal(languageOf('/w/x.txt', 'art-agent'), 'agent');
  assert.equal(languageOf('/w/x.art', 'plaintext'), 'art');
});

test('the server takes only the two source languages, and ignores a URI query', () => {
  assert.equal(documentLanguage('file:///w/lib.art?x=1', undefined), 'art');
  assert.equal(documentLanguage('file:///w/arith.cot.txt', undefined), null);
  assert.equal(documentLanguage('file:///w/run.jsonl', undefined), null);
  assert.ok(isSourceLanguage('agent') && !isSourceLanguage('trace') && !isSourceLanguage(undefined));
});

test('art check and friends refuse a file that is not a source, naming its extension', () => {
  assert.equal(cliLanguage('lib.art'), 'art');
  assert.throws(
    () => cliLanguage('arith.cot.txt'),
    /arith\.cot\.txt: unknown file type '\.txt': give a task library \(\.art\) or an agent spec \(\.agent\)/,
  );
});
