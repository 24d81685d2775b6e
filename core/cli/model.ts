// `art model pull [URI]` and `art model list`: local model files in the models folder outside any workspace
// (core/model/modelFiles.ts). A pull shows its progress (a bar on a terminal, a line per 10% in a pipe); Ctrl-C, SIGTERM
// and SIGHUP end it at once, leaving no file under a model's name (what came is kept for the same pull to resume).
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { DEFAULT_LOCAL_MODEL } from '../model/defaultModel';
import { listModelFiles, modelsFolder, pullModel, PullError } from '../model/modelFiles';
import { CliError } from './files';
import { stoppable } from './signals';

export const MODEL_USAGE = `usage: art model <pull|list> [options]

  pull [URI]        download a GGUF model into the models folder and print its path; URI is hf:owner/repo/file.gguf,
                    hf:owner/repo:quant or an https URL (default: ${DEFAULT_LOCAL_MODEL.uri},
                    ${DEFAULT_LOCAL_MODEL.name}, its SHA-256 checked)  [--dir DIR]
  list              the GGUF files of the models folder  [--dir DIR] [--json]

The models folder is $ART_MODELS_DIR, else $XDG_CACHE_HOME/art-studio/models, else ~/.cache/art-studio/models.
HF_ENDPOINT sets a mirror of the hub. Run a program on a model: art run FILE --model-file PATH.`;

export interface ModelIo {
  out: (s: string) => void;
  err: (s: string) => void;
  env?: NodeJS.ProcessEnv;
  isTTY?: boolean;
  stream?: NodeJS.WritableStream;
}

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

export async function modelCommand(argv: string[], io: ModelIo): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { dir: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help || sub === 'help' || sub === undefined) {
    io.out(MODEL_USAGE);
    return sub === undefined ? 2 : 0;
  }
  const dir = values.dir ?? modelsFolder(io.env ?? process.env);
  if (sub === 'list') {
    if (positionals.length) throw new CliError('art model list: takes no file; --dir DIR lists another folder');
    const files = listModelFiles(dir);
    if (values.json) io.out(JSON.stringify({ folder: dir, models: files }, null, 2));
    else if (!files.length) io.out(`No model in ${dir}: art model pull downloads ${DEFAULT_LOCAL_MODEL.name}.`);
    else {
      io.out(`${dir}:`);
      for (const f of files) io.out(`  ${f.name}  ${mb(f.bytes)}${f.known ? `  (${f.known})` : ''}`);
    }
    return 0;
  }
  if (sub !== 'pull') throw new CliError(`art model: unknown subcommand '${sub}': pull or list (art model --help)`);
  if (positionals.length > 1) throw new CliError('art model pull: give one URI (art model --help)');
  const uri = positionals[0];
  const ac = new AbortController();
  const tty = io.isTTY ?? process.stderr.isTTY;
  const bar = tty
    ? new SingleBar({ format: ' {bar} {percentage}% | {got} of {size}', stream: io.stream ?? process.stderr, hideCursor: true })
    : undefined;
  let started = false;
  let lastTenth = -1;
  io.err(`Pulling ${uri ?? `${DEFAULT_LOCAL_MODEL.name} (${DEFAULT_LOCAL_MODEL.uri})`} into ${dir}`);
  try {
    const path = await stoppable(
      () => ac.abort(),
      () =>
        pullModel({
          uri,
          dir,
          env: io.env ?? process.env,
          signal: ac.signal,
          log: line => io.err(line),
          onProgress: p => {
            if (!p.totalBytes) return;
            if (bar) {
              if (!started) bar.start(p.totalBytes, 0, { got: mb(0), size: mb(p.totalBytes) });
              started = true;
              // A split model's total grows as each part announces its size.
              if (bar.getTotal() !== p.totalBytes) bar.setTotal(p.totalBytes);
              bar.update(p.downloadedBytes, { got: mb(p.downloadedBytes), size: mb(p.totalBytes) });
              return;
            }
            const tenth = Math.floor((10 * p.downloadedBytes) / p.totalBytes);
            if (tenth > lastTenth) io.err(`  ${tenth * 10}% of ${mb(p.totalBytes)}`);
            lastTenth = tenth;
          },
        }),
    );
    bar?.stop();
    io.out(path);
    return 0;
  } catch (e) {
    bar?.stop();
    if (e instanceof PullError) throw new CliError(`art model pull: ${e.message}`, ac.signal.aborted ? 130 : 1);
    throw e;
  }
}
