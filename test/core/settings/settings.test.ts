// The declaration of the `art.*` settings that are not run options (core/settings/settings.ts): every one has a
// valid default inside its bounds, a scope and a description, and a value from a client is clamped to the bounds or
// refused by type.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_RUNS_FOLDER,
  editorSettings,
  SETTINGS,
  settingBounds,
  settingDefault,
  settingValue,
  type SettingKey,
} from '../../../core/settings/settings';

const keys = Object.keys(SETTINGS) as SettingKey[];

describe('settings declaration', () => {
  test('declares the settings that are not run options, each with a default, a scope and a description', () => {
    assert.deepEqual(keys.sort(), [
      'debug.streamToEditor',
      'diagnostics.debounceMs',
      'diagnostics.enable',
      'evaluation.concurrency',
      'run.mode',
      'runs.folder',
      'runs.gitignore',
      'server.trace',
    ]);
    for (const key of keys) {
      const d = settingDefault(key);
      assert.notEqual(d, undefined, `${key} has no default`);
      assert.equal(settingValue(key, d), d, `${key}: its default is a valid value`);
      assert.ok(SETTINGS[key].description.length > 20, `${key} is undocumented`);
      assert.match(SETTINGS[key].scope, /^(window|resource|machine|machine-overridable)$/);
    }
    assert.equal(settingDefault('runs.folder'), DEFAULT_RUNS_FOLDER);
    assert.equal(settingDefault('diagnostics.debounceMs'), 150);
    assert.equal(settingDefault('evaluation.concurrency'), 4, "as art eval's --concurrency");
    assert.deepEqual(settingBounds('evaluation.concurrency'), { minimum: 1, maximum: 64 });
    assert.equal(settingValue('evaluation.concurrency', 500), 64);
  });

  test('the debounce is bounded 0 to 5000 ms, and a value outside is clamped, not refused', () => {
    assert.deepEqual(settingBounds('diagnostics.debounceMs'), { minimum: 0, maximum: 5000 });
    assert.equal(settingValue('diagnostics.debounceMs', 10_000), 5000);
    assert.equal(settingValue('diagnostics.debounceMs', -5), 0);
    assert.equal(settingValue('diagnostics.debounceMs', 40), 40);
    assert.deepEqual(settingBounds('runs.folder'), {});
  });

  test('a value of the wrong type, not one of an enum, or not finite is refused', () => {
    assert.equal(settingValue('diagnostics.debounceMs', '40'), undefined);
    assert.equal(settingValue('diagnostics.debounceMs', Number.NaN), undefined);
    assert.equal(settingValue('diagnostics.debounceMs', Infinity), undefined);
    assert.equal(settingValue('diagnostics.enable', 'false'), undefined);
    assert.equal(settingValue('server.trace', 'loud'), undefined);
    assert.equal(settingValue('server.trace', 'verbose'), 'verbose');
    assert.equal(settingValue('runs.folder', 3), undefined);
    assert.equal(settingValue('runs.folder', undefined), undefined);
  });

  test("package.json's entries carry the declared default, bounds, scope and description", () => {
    const entries = editorSettings();
    assert.deepEqual(Object.keys(entries).sort(), keys.map(k => `art.${k}`).sort());
    for (const key of keys) {
      const e = entries[`art.${key}`];
      assert.deepEqual(e.default, settingDefault(key));
      assert.equal(e.scope, SETTINGS[key].scope);
      assert.equal(e.description, SETTINGS[key].description);
      const { minimum, maximum } = settingBounds(key);
      assert.equal(e.minimum, minimum);
      assert.equal(e.maximum, maximum);
    }
    assert.deepEqual(entries['art.server.trace'].enum, ['off', 'messages', 'verbose']);
  });
});
