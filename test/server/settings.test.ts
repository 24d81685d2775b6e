// The language server's settings take their defaults and bounds from the declaration (core/settings/settings.ts):
// a value past a bound is clamped to the declared bound, nested (`{diagnostics: {debounceMs}}`) or dotted
// (`{"diagnostics.debounceMs": ...}`) alike, and a value of the wrong type keeps what was there.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { artSection, DEFAULT_SETTINGS, readSettings } from '../../server/settings';
import { settingBounds, settingDefault } from '../../core/settings/settings';
import { TOOLS_FILE_NAME } from '../../core/tools/toolsFile';

describe('server settings', () => {
  test('the defaults are the declared ones', () => {
    assert.deepEqual(readSettings(undefined), DEFAULT_SETTINGS);
    assert.equal(DEFAULT_SETTINGS.diagnostics.debounceMs, settingDefault('diagnostics.debounceMs'));
    assert.equal(DEFAULT_SETTINGS.diagnostics.enable, settingDefault('diagnostics.enable'));
    assert.equal(DEFAULT_SETTINGS.tools.file, TOOLS_FILE_NAME);
  });

  test('the debounce is clamped to the declared bounds, nested and dotted alike', () => {
    const { minimum, maximum } = settingBounds('diagnostics.debounceMs');
    assert.equal(typeof minimum, 'number');
    assert.equal(typeof maximum, 'number');
    for (const [given, expected] of [
      [maximum! + 1, maximum],
      [maximum! * 10, maximum],
      [minimum! - 1, minimum],
      [maximum! - 1, maximum! - 1],
    ]) {
      assert.equal(readSettings({ diagnostics: { debounceMs: given } }).diagnostics.debounceMs, expected, `nested ${given}`);
      assert.equal(readSettings({ 'diagnostics.debounceMs': given }).diagnostics.debounceMs, expected, `dotted ${given}`);
    }
  });

  test('a value of the wrong type keeps the base; the dotted key wins over the nested one', () => {
    const base = readSettings({ diagnostics: { debounceMs: 40, enable: false } });
    assert.deepEqual(readSettings({ diagnostics: { debounceMs: '0', enable: 'yes' } }, base).diagnostics, { debounceMs: 40, enable: false });
    assert.equal(readSettings({ diagnostics: { debounceMs: 10 }, 'diagnostics.debounceMs': 20 }).diagnostics.debounceMs, 20);
    assert.equal(readSettings({ 'diagnostics.enable': false }).diagnostics.enable, false);
  });

  test('the tool file is trimmed, and an empty one keeps the default', () => {
    assert.equal(readSettings({ tools: { file: ' tools.json ' } }).tools.file, 'tools.json');
    assert.equal(readSettings({ 'tools.file': '  ' }).tools.file, TOOLS_FILE_NAME);
  });

  test('the art section is found in the shapes clients send', () => {
    const art = { diagnostics: { debounceMs: 0 } };
    assert.equal(artSection({ art }), art);
    assert.equal(artSection({ settings: { art } }), art);
    assert.equal(artSection(art), art);
    assert.equal(artSection({ python: {} }), undefined);
  });
});
