// Writes the parts of package.json that come from the declarations of the run options (core/runner/options.ts) and
// of the other settings (core/settings/settings.ts): the `art` debugger's launch attributes and every `art.*`
// setting. Edit the declarations, not package.json, then run this.
//   npm run gen:manifest                                     write package.json
//   node --import tsx scripts/gen-manifest.mjs --check       exit 1 if package.json is out of date (a unit test runs this)
//   ... --package=FILE                                       another manifest than ../package.json (the test checks a stale copy fails)
import { readFileSync, writeFileSync } from 'node:fs';
import { launchAttributes, optionSettings } from '../core/runner/options.ts';
import { editorSettings } from '../core/settings/settings.ts';

const other = process.argv.find(a => a.startsWith('--package='));
const target = other ? other.slice('--package='.length) : new URL('../package.json', import.meta.url);
const current = readFileSync(target, 'utf8');
const pkg = JSON.parse(current);

const debuggers = pkg.contributes.debuggers.filter(d => d.type === 'art');
if (debuggers.length !== 1) throw new Error('package.json: expected one debugger of type "art"');
debuggers[0].configurationAttributes.launch = launchAttributes();

// Settings: a declared one replaces the entry of the same key where it stands; a new one goes after the last setting
// of its group (`art.python.*`), else at the end; one that is declared nowhere is dropped.
const props = pkg.contributes.configuration.properties;
const options = optionSettings();
const others = editorSettings();
const both = Object.keys(others).filter(k => k in options);
if (both.length) throw new Error(`${both.join(', ')}: declared both as a run option's setting and in core/settings/settings.ts`);
const declared = { ...options, ...others };
const keys = Object.keys(props).filter(k => k in declared);
for (const key of Object.keys(declared)) {
  if (keys.includes(key)) continue;
  const group = key.split('.').slice(0, 2).join('.') + '.';
  const last = keys.findLastIndex(k => k.startsWith(group));
  keys.splice(last < 0 ? keys.length : last + 1, 0, key);
}
pkg.contributes.configuration.properties = Object.fromEntries(keys.map(k => [k, declared[k]]));

const text = JSON.stringify(pkg, null, 2) + '\n';
if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(
      `${other ? target : 'package.json'} is out of date with the run options (core/runner/options.ts) or the settings (core/settings/settings.ts): run npm run gen:manifest`,
    );
    process.exit(1);
  }
} else if (current !== text) {
  writeFileSync(target, text);
  console.log('package.json: launch attributes and settings written');
}
