// `art test LIBRARY...`: every demonstration program of the libraries is a test (core/runner/libraryTest.ts). It is
// replayed, its deterministic tools run again, and it fails when a tool's output or the final answer differs from
// the recording (white space folded), with a diff: the step, the recorded text, what came now. `--tools all` also
// compares model-backed and search steps (their tools then ask the endpoint given by --base-url/--model). Ends with
// `N passed, N failed`; exit 1 when a program fails, 2 on a usage error.
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { parseArt } from '../art/parse';
import { OpenAIModel } from '../model/openai';
import type { ModelClient } from '../model/types';
import { describeFailure, testLibrary } from '../runner/libraryTest';
import { createToolRegistry } from '../tools/registry';
import { CliError, languageOf, readSource } from './files';

export const TEST_USAGE = `usage: art test LIBRARY.art... [options]
  --tools deterministic|all   which steps are compared (default deterministic: code, calculator, lookup and user
                              tools; all: model-backed and search steps too)
  --base-url URL --model M    the endpoint model-backed tools ask with --tools all (without one they answer from
                              the recording); the key is read from --api-key-env (default OPENAI_API_KEY)
  --python PATH               the Python interpreter of the code tools
  --corpus DIR                the document folder of search
  --tool-timeout MS           each tool call's time limit`;

export interface TestIo {
  out: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

export async function testCommand(argv: string[], io: TestIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      tools: { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key-env': { type: 'string' },
      python: { type: 'string' },
      corpus: { type: 'string' },
      'tool-timeout': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.out(TEST_USAGE);
    return 0;
  }
  if (!positionals.length) throw new CliError('art test: give at least one task library (.art): art test LIBRARY.art...');
  const compare = values.tools ?? 'deterministic';
  if (compare !== 'deterministic' && compare !== 'all') throw new CliError(`art test: --tools is "deterministic" or "all", not "${compare}"`);
  const timeout = values['tool-timeout'] === undefined ? undefined : Number(values['tool-timeout']);
  if (timeout !== undefined && !(Number.isInteger(timeout) && timeout > 0))
    throw new CliError(`art test: --tool-timeout is a number of milliseconds, not "${values['tool-timeout']}"`);
  if (!!values['base-url'] !== !!values.model)
    throw new CliError('art test: give both --base-url and --model (the endpoint and the model it serves)');
  const libraries = positionals.map(path => {
    if (languageOf(path) !== 'art') throw new CliError(`${path}: art test runs the programs of task libraries (.art), not agent specs`);
    return { path, doc: parseArt(readSource(path)) };
  });
  const env = io.env ?? process.env;
  const toolModel: ModelClient | undefined =
    values['base-url'] && values.model
      ? new OpenAIModel({ baseURL: values['base-url'], model: values.model, apiKey: env[values['api-key-env'] ?? 'OPENAI_API_KEY'] || undefined })
      : undefined;
  const tools = await createToolRegistry({
    workspaceRoot: process.cwd(),
    trusted: true,
    pythonPath: values.python,
    corpusDir: values.corpus,
  });
  let passed = 0;
  let failed = 0;
  try {
    for (const note of tools.problems) io.out(`note: ${note}`);
    for (const { path, doc } of libraries) {
      const shown = relative(process.cwd(), path).startsWith('..') ? path : relative(process.cwd(), path);
      for (const t of await testLibrary(doc, { tools, compare, toolModel, toolTimeoutMs: timeout })) {
        io.out(`${t.passed ? 'PASS' : 'FAIL'} ${shown}:${t.line + 1} program ${t.index} (${t.title})`);
        if (t.passed) passed++;
        else {
          failed++;
          for (const line of describeFailure(t)) io.out(line);
        }
      }
    }
  } finally {
    await tools.dispose();
  }
  io.out(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}
