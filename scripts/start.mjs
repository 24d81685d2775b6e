// `npm start`: ART Studio in a real VS Code in your browser. Installs code-server when missing
// (scripts/setup.sh), provisions the default local model (scripts/model.mjs: once, into the models folder outside the
// checkout), packages the extension for this platform (scripts/package.mjs: with node-llama-cpp, so local models run)
// and installs the VSIX into a profile kept in .art-cache/code-server/, chooses the local model for Live in that profile's
// settings unless you chose a model there, starts code-server on 127.0.0.1 with a copy of examples/ open, prints the
// URL (and the `art` command line to run on that copy), and stays up until Ctrl+C. Reuses everything already
// installed; your settings in that profile are kept between runs.
// The workspace is a copy (.art-cache/examples/, made on the first start and kept, with your edits, afterwards;
// --fresh copies it again): code-server saves as you type, and the checkout's examples/ must not change under you.
// Usage: npm start [-- --port 8080] [-- --fresh]
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { applyEdits, modify, parse } from 'jsonc-parser';
import { packageExtension } from './package.mjs';
import {
  codeServerCommand,
  ensureInstalled,
  EXTENSION_ID,
  QUIET_USER_SETTINGS,
  ROOT,
  startCodeServer,
  workbenchUrl,
  writeUserSettings,
} from './code-server.mjs';

const { values: opts } = parseArgs({ options: { port: { type: 'string', default: process.env.ART_PORT ?? '8080' }, fresh: { type: 'boolean' } } });
const dataDir = join(ROOT, '.art-cache/code-server');
const examples = join(ROOT, '.art-cache/examples');
if (opts.fresh) rmSync(examples, { recursive: true, force: true });
if (!existsSync(examples)) cpSync(join(ROOT, 'examples'), examples, { recursive: true });
const vsix = join(ROOT, '.art-cache/art-studio.vsix');
let modelFile;
let profile;

/**
 * The local model as the profile's model, unless the user chose a model source there: `art.model.source` "local" and
 * `art.model.file` the default model's file. The run mode stays the product's default, Replay: the first F5 replays a
 * recorded program at once, and Live on this model is one click on the status bar item away (what npm start says).
 * Comments and other settings are kept (jsonc-parser edits in place). Returns what the profile now says.
 */
function chooseLocalModel(settingsFile, file) {
  let text = readFileSync(settingsFile, 'utf8');
  const settings = parse(text) ?? {};
  if (settings['art.model.source'] === undefined) {
    for (const [key, value] of [
      ['art.model.source', 'local'],
      ['art.model.file', file],
    ])
      text = applyEdits(text, modify(text, [key], value, { formattingOptions: { insertSpaces: true, tabSize: 2 } }));
    writeFileSync(settingsFile, text);
    console.log(`Chose the local model ${file} for Live in the profile's settings (art.model.source, art.model.file).`);
  }
  const now = parse(text) ?? {};
  return { live: now['art.run.mode'] === 'live', local: now['art.model.source'] === 'local', file: now['art.model.file'] };
}

try {
  ensureInstalled();
  mkdirSync(dataDir, { recursive: true });
  console.log('Provisioning the default local model (once; later runs check its digest)...');
  modelFile = execFileSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/model.mjs')], {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
    .trim()
    .split('\n')
    .at(-1);
  console.log('Building and packaging the extension...');
  // Built and packaged for this platform: node-llama-cpp and its binary go into the VSIX.
  packageExtension({ target: 'host', out: vsix, quiet: true });
  const install = codeServerCommand([
    '--extensions-dir',
    join(dataDir, 'ext'),
    '--user-data-dir',
    join(dataDir, 'user'),
    '--install-extension',
    vsix,
    '--force',
  ]);
  if (install.status !== 0) throw new Error(`installing ${vsix} into code-server failed:\n${install.stdout}${install.stderr}`);
  console.log(`Installed ${EXTENSION_ID} into ${join(dataDir, 'ext')}`);
  // A first start opens the examples' README (its "Things to try"), not an empty workbench.
  writeUserSettings(dataDir, { ...QUIET_USER_SETTINGS, 'workbench.startupEditor': 'readme' }, { overwrite: false });
  profile = chooseLocalModel(join(dataDir, 'user', 'User', 'settings.json'), modelFile);
} catch (e) {
  console.error(`npm start: ${e instanceof Error ? e.message : e}`);
  process.exit(1);
}

let server;
try {
  server = await startCodeServer({ workspace: examples, dataDir, port: Number(opts.port), smokeTestDriver: false });
} catch (e) {
  if (!/EADDRINUSE/.test(String(e))) {
    console.error(`npm start: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
  console.log(`Port ${opts.port} is in use; taking a free one.`);
  server = await startCodeServer({ workspace: examples, dataDir, port: 0, smokeTestDriver: false });
}

console.log(
  `\nART Studio is running in code-server (VS Code in the browser), with a copy of examples/ open:\n\n    ${workbenchUrl(server, examples)}\n`,
);
console.log(`The workspace is ${examples} (your edits stay there; npm start -- --fresh copies examples/ again).`);
// The build above wrote dist/cli.js; relative paths given to it start at the folder it is run from.
console.log(
  `The art command line on the same files, from a terminal:\n\n    cd ${shellWord(examples)} && node ${shellWord(join(ROOT, 'dist/cli.js'))} run library.art\n\n` +
    `(inside the checkout \`npx art run library.art\` does the same; \`npm link\` in ${ROOT} makes \`art\` a command everywhere).`,
);
const local = `Live: Local: ${basename(modelFile)}`;
console.log(
  profile.live
    ? `The status bar says Live (${profile.local ? `Local: ${basename(String(profile.file))}` : 'your model'}): F5 in library.art generates its first program with that model; click the item for Replay.`
    : `The status bar says Replay: F5 in library.art replays its first program (Arithmetic), stopping before its [calculator] call. ` +
        `Live on the local model is one click away: click Replay and choose ${local}; F5 then generates the program in-process (no key, no server), pausing at each tool call.`,
);
console.log(
  `The first program live on the local model, from a terminal (art run without --model-file replays it):\n\n    cd ${shellWord(examples)} && node ${shellWord(join(ROOT, 'dist/cli.js'))} run library.art --model-file ${shellWord(modelFile)}\n`,
);
console.log('Listening on 127.0.0.1 only, without a password. Press Ctrl+C to stop.');

/** A path as one word for a POSIX shell. */
function shellWord(path) {
  return /^[\w./@:+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log('\nStopping code-server...');
  await server.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.process.on('exit', code => {
  if (stopping) return;
  console.error(`code-server exited unexpectedly (code ${code}). Its last output:\n${server.output.slice(-20).join('')}`);
  process.exit(1);
});
