// `art test LIBRARY...`: every demonstration program of the libraries is a test (core/evaluation/libraryTest.ts). It is
// replayed, its deterministic tools run again, and it fails when a tool's output or the final answer differs from
// the recording (white space folded), with a diff: the step, the recorded text, what came now. `--tools all` also
// compares model-backed and search steps (their tools then ask the endpoint given by --base-url/--model). Ends with
// `N passed, N failed`; exit 1 when a program fails, 2 on a usage error.
import { describeFailure } from '../evaluation/libraryTest';
import { programLine, testLibraries } from '../agentTools/test';
import { NOT_FOR_TEST } from '../agentTools/runOptions';
import { CliError } from './files';
import { cliLabel, helpText, optionHelpLines, parseCommandLine } from './optionFlags';

export function testUsage(): string {
  return helpText('usage: art test LIBRARY.art... [options]', [
    [
      '--tools deterministic|all',
      'which steps are compared (default deterministic: code, calculator, lookup and user tools; all: model-backed and search steps too, which then ask the endpoint of --base-url/--model, or answer from the recording without one)',
    ],
    ...optionHelpLines(NOT_FOR_TEST),
  ]);
}

export interface TestIo {
  out: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** The current directory: the libraries and the default --cwd start there (default: the process's). */
  cwd?: string;
}

export async function testCommand(argv: string[], io: TestIo): Promise<number> {
  const { values, positionals, options } = parseCommandLine('test', argv, [{ flag: 'tools', type: 'string' }], NOT_FOR_TEST);
  if (values.help) {
    io.out(testUsage());
    return 0;
  }
  if (!positionals.length) throw new CliError('art test: give at least one task library (.art): art test LIBRARY.art...');
  const compare = values.tools ?? 'deterministic';
  if (compare !== 'deterministic' && compare !== 'all') throw new CliError(`art test: --tools is "deterministic" or "all", not "${compare}"`);
  const here = io.cwd ?? process.cwd();
  const report = await testLibraries(positionals, options, {
    compare,
    env: io.env ?? process.env,
    cwd: here,
    label: cliLabel('LIBRARY'),
    onNote: note => io.out(`note: ${note}`),
    onProgram: t => {
      io.out(programLine(t, here));
      if (!t.passed) for (const line of describeFailure(t)) io.out(line);
    },
  });
  io.out(`${report.passed} passed, ${report.failed} failed`);
  return report.failed ? 1 : 0;
}
