// Writes the parts of package.json that come from the run options' declaration (core/launch/options.ts): the
// `art` debugger's launch attributes and the settings of the options that have one. Edit the declaration, not
// package.json, then run this.
//   npm run gen:manifest                                     write package.json
//   node --import tsx scripts/gen-manifest.mjs --check       exit 1 if package.json is out of date (a unit test runs this)
//   ... --package=FILE                                       another manifest than ../package.json (the test checks a stale copy fails)
import { readFileSync, writeFileSync } from 'node:fs';
import { launchAttributes, optionSettings } from '../core/launch/options.ts';

const other = process.argv.find(a => a.startsWith('--package='));
const target = other ? other.slice('--package='.length) : new URL('../package.json', import.meta.url);
const current = readFileSync(target, 'utf8');
const pkg = JSON.parse(current);

const debuggers = pkg.contributes.debuggers.filter(d => d.type === 'art');
if (debuggers.length !== 1) throw new Error('package.json: expected one debugger of type "art"');
debuggers[0].configurationAttributes.launch = launchAttributes();

// Settings: a declared one replaces the entry of the same key where it stands; a new one goes after the last setting
// of its group (`art.python.*`), else at the end. Settings that are not run options stay as they are.
const props = pkg.contributes.configuration.properties;
const declared = optionSettings();
const keys = Object.keys(props);
for (const key of Object.keys(declared)) {
  if (keys.includes(key)) continue;
  const group = key.split('.').slice(0, 2).join('.') + '.';
  const last = keys.findLastIndex(k => k.startsWith(group));
  keys.splice(last < 0 ? keys.length : last + 1, 0, key);
}
pkg.contributes.configuration.properties = Object.fromEntries(keys.map(k => [k, declared[k] ?? props[k]]));

const text = JSON.stringify(pkg, null, 2) + '\n';
if (process.argv.includes('--check')) {
  if (current !== text) {
    console.error(`${other ? target : 'package.json'} is out of date with the run options (core/launch/options.ts): run npm run gen:manifest`);
    process.exit(1);
  }
} else if (current !== text) {
  writeFileSync(target, text);
  console.log('package.json: launch attributes and run option settings written');
}
