// Writes what comes from the declarations of the run options (OPTIONS_MODULE below), of the other settings
// (core/settings/settings.ts) and of the agent tools (core/agentTools/catalog.ts): in package.json, the `art`
// debugger's launch attributes, every `art.*` setting and the language model tools; in docs/cli.md, the table of run
// options between its two `run-options` markers. Edit the declarations, not package.json or that table, then run this.
//   npm run gen:manifest                                     write package.json and docs/cli.md
//   node --import tsx scripts/gen-manifest.mjs --check       exit 1 if either is out of date (a unit test runs this)
//   ... --package=FILE                                       another manifest than ../package.json (the test checks a stale copy fails)
//   ... --docs=FILE                                          another page than ../docs/cli.md (likewise)
import { readFileSync, writeFileSync } from 'node:fs';
import { NOT_FOR_EVAL, NOT_FOR_PROMPT, NOT_FOR_TEST } from '../core/agentTools/runOptions.ts';
import { languageModelTools } from '../core/agentTools/catalog.ts';

/** The one place this script names the declaration's module (every import below goes through it). */
const OPTIONS_MODULE = '../core/launch/options.ts';
const OPTIONS_PATH = OPTIONS_MODULE.replace(/^\.\.\//, '');
const { RUN_OPTIONS, isBooleanOption, launchAttributes, optionSettings } = await import(OPTIONS_MODULE);
const { editorSettings } = await import('../core/settings/settings.ts');

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

// The language model tools: one per agent tool, in the catalog's order.
pkg.contributes.languageModelTools = languageModelTools();

const text = JSON.stringify(pkg, null, 2) + '\n';

// docs/cli.md: the table of run options, between the markers; the prose around it is written by hand.
const otherDocs = process.argv.find(a => a.startsWith('--docs='));
const docsTarget = otherDocs ? otherDocs.slice('--docs='.length) : new URL('../docs/cli.md', import.meta.url);
const docsName = otherDocs ? docsTarget : 'docs/cli.md';
const docsCurrent = readFileSync(docsTarget, 'utf8');
const START = '<!-- run-options: start (written by npm run gen:manifest from the declaration; do not edit) -->';
const END = '<!-- run-options: end -->';
const from = docsCurrent.indexOf(START);
const to = docsCurrent.indexOf(END);
if (from < 0 || to < from) {
  console.error(`${docsName}: the markers of the run options table are missing: put the lines\n${START}\n${END}\nwhere the table goes`);
  process.exit(1);
}
const docsText = docsCurrent.slice(0, from + START.length) + '\n' + optionTable() + docsCurrent.slice(to);

if (process.argv.includes('--check')) {
  let stale = false;
  if (current !== text) {
    console.error(
      `${other ? target : 'package.json'} is out of date with the run options (${OPTIONS_PATH}), the settings (core/settings/settings.ts) or the agent tools (core/agentTools/catalog.ts): run npm run gen:manifest`,
    );
    stale = true;
  }
  if (docsCurrent !== docsText) {
    console.error(`${docsName} is out of date with the run options (${OPTIONS_PATH}): run npm run gen:manifest`);
    stale = true;
  }
  if (stale) process.exit(1);
} else {
  if (current !== text) {
    writeFileSync(target, text);
    console.log('package.json: launch attributes, settings and language model tools written');
  }
  if (docsCurrent !== docsText) {
    writeFileSync(docsTarget, docsText);
    console.log(`${docsName}: the run options table written`);
  }
}

/** One row per run option: its launch attribute, flag and the commands that take it, setting, default, description. */
function optionTable() {
  const cell = s => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const code = s => '`' + s + '`';
  const rows = ['| option | `art` flag | commands | setting | default | what it does |', '| --- | --- | --- | --- | --- | --- |'];
  for (const [name, spec] of Object.entries(RUN_OPTIONS)) {
    const attribute = spec.launch === false ? `${code(name)} (not a launch attribute)` : code(name);
    const flag = spec.cli ? code(`--${spec.cli.flag}${spec.cli.arg ? ` ${spec.cli.arg}` : ''}`) : name === 'program' ? 'the file argument' : '';
    const commands = !spec.cli
      ? name === 'program'
        ? 'run, test, eval, prompt'
        : ''
      : [
          ['run', new Set()],
          ['test', NOT_FOR_TEST],
          ['eval', NOT_FOR_EVAL],
          ['prompt', NOT_FOR_PROMPT],
        ]
          .filter(([, skip]) => !skip.has(name))
          .map(([command]) => command)
          .join(', ');
    // A setting whose own default differs from the option's says it ('' is "not set").
    const settingDefault = spec.setting?.default;
    const setting = !spec.setting
      ? ''
      : code(`art.${spec.setting.key}`) +
        (settingDefault !== undefined && settingDefault !== '' ? ` (default ${code(JSON.stringify(settingDefault))})` : '');
    const parsed = spec.schema.safeParse(undefined);
    const def =
      parsed.success && parsed.data !== undefined && !(isBooleanOption(name) && parsed.data === false) ? code(JSON.stringify(parsed.data)) : '';
    rows.push(`| ${[attribute, flag, commands, setting, def, spec.description].map(cell).join(' | ')} |`);
  }
  return rows.join('\n') + '\n';
}
