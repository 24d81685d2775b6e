// What a command tool's template (`["grep", "-F", "{input}", "notes.txt"]`) does with the model's text, read once for
// the tool file's warnings (toolsFile.ts) and the runner's protection (userTools.ts):
//
// - The program is found past wrappers that run another command (`env`, `sudo`, `timeout 5`, `nice -n 5`, `xargs`,
//   `busybox`, `nohup`, `setsid`, `stdbuf`, `doas`, `command`, `time`), with their options and `env`'s NAME=VALUE.
// - An interpreter given its code in an argument (`sh -c`, `bash -lc`, `python3 -Ic`, `node -e`, `perl -ne`,
//   `pwsh -Command`, `cmd /c`, ...) whose code holds a placeholder runs the model's text as code: warned about.
//   `env -S` with a placeholder splits the model's text into a command line: warned about too. `xargs` reading the
//   input on standard input makes the model's text the arguments (and options) of its command: warned about.
// - Every other argument that begins with a placeholder (`{input}`, `{input}.txt`) is protected from being read as
//   an option: the runner puts "--" before the first one whose value begins with "-". Not after a "--" of the
//   program's own, and not for an interpreter's code or the arguments after it (`sh -c '...' sh {input}`,
//   `python3 -c '...' {input}`): those are the code's own, which no option parser reads. A flag such as `-e` is a
//   code flag only where the program is an interpreter (`grep -e TODO {input}` is protected).

/** The placeholders a template may hold. */
export const PLACEHOLDER = /\{(input|instruction|previousAnswer)\}/g;
const HAS_PLACEHOLDER = /\{(?:input|instruction|previousAnswer)\}/;
const STARTS_WITH_PLACEHOLDER = /^\{(?:input|instruction|previousAnswer)\}/;

/** Whether a command tool gets its input on standard input: as its `stdin` says, else when no argument holds a placeholder. */
export function readsStdin(command: readonly string[], stdin: boolean | undefined): boolean {
  return stdin ?? !command.some(a => HAS_PLACEHOLDER.test(a));
}

const SHELLS = new Set(['sh', 'ash', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'yash', 'fish', 'csh', 'tcsh']);

/**
 * Interpreters that take code in an argument: the one-letter flags (alone or ending a cluster: `-lc`, `-Ic`, `-ne`)
 * and the long ones (also `--eval=CODE`) after which the code comes; `ownArgs`: the arguments after the code are the
 * code's (sed's are files, still read as options).
 */
const INTERPRETERS: Record<string, { letters: string; long?: string[]; ownArgs: boolean; firstOperand?: boolean; valued?: string }> = {
  python: { letters: 'c', ownArgs: true, valued: 'WXm' },
  pypy: { letters: 'c', ownArgs: true, valued: 'WXm' },
  perl: { letters: 'eE', ownArgs: true },
  ruby: { letters: 'e', ownArgs: true },
  node: { letters: 'ep', long: ['--eval', '--print'], ownArgs: true, valued: 'r' },
  bun: { letters: 'ep', long: ['--eval', '--print'], ownArgs: true },
  php: { letters: 'r', ownArgs: true },
  lua: { letters: 'e', ownArgs: true },
  luajit: { letters: 'e', ownArgs: true },
  rscript: { letters: 'e', ownArgs: true },
  r: { letters: 'e', ownArgs: true },
  osascript: { letters: 'e', ownArgs: true },
  // The first argument that is no option is the code, unless a flag gave it.
  awk: { letters: 'e', long: ['--source'], ownArgs: true, firstOperand: true, valued: 'fvF' },
  gawk: { letters: 'e', long: ['--source'], ownArgs: true, firstOperand: true, valued: 'fvF' },
  mawk: { letters: '', ownArgs: true, firstOperand: true, valued: 'fvF' },
  sed: { letters: 'e', long: ['--expression'], ownArgs: false, firstOperand: true, valued: 'f' },
};

/** Wrappers: their options that take a value (as a separate argument), and whether NAME=VALUE or a count come first. */
const WRAPPERS: Record<string, { valued: string[]; assignments?: boolean; positionals?: number }> = {
  env: { valued: ['-u', '--unset', '-C', '--chdir'], assignments: true },
  sudo: { valued: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-T', '-U', '--user', '--group', '--chdir', '--prompt'], assignments: true },
  doas: { valued: ['-u', '-C'] },
  timeout: { valued: ['-s', '-k', '--signal', '--kill-after'], positionals: 1 },
  nice: { valued: ['-n', '--adjustment'] },
  xargs: { valued: ['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs'] },
  busybox: { valued: [] },
  nohup: { valued: [] },
  setsid: { valued: [] },
  stdbuf: { valued: ['-i', '-o', '-e'] },
  command: { valued: [] },
  time: { valued: ['-f', '-o', '--format', '--output'] },
};

/** `/usr/bin/python3.11` -> `python`, `bash.exe` -> `bash`, `Rscript` -> `rscript`. */
export function programName(arg: string): string {
  const base = arg
    .replace(/^.*[\\/]/, '')
    .toLowerCase()
    .replace(/\.exe$/, '');
  return /^(python|pypy|perl|ruby|node|lua|php)[\d.]*$/.test(base) ? base.replace(/[\d.]+$/, '') : base === 'nodejs' ? 'node' : base;
}

export interface TemplateShape {
  /** Where the program is (past the wrappers), and its name as programName gives it. */
  programAt: number;
  program: string;
  /** The wrappers before it, by name. */
  wrappers: string[];
  /** The interpreter's code: where its flag and its text are; its text holds a placeholder when `fromText`. */
  code?: { at: number; flag?: string; fromText: boolean; ownArgs: boolean };
  /** `env -S STRING` holding a placeholder: the model's text is split into a command line. */
  splitLine?: number;
}

/** Reads the template: the program past its wrappers, and the code an interpreter is given. */
export function templateShape(command: readonly string[]): TemplateShape {
  const wrappers: string[] = [];
  let i = 0;
  let splitLine: number | undefined;
  for (;;) {
    const name = programName(command[i] ?? '');
    const w = WRAPPERS[name];
    if (!w || i >= command.length - 1) break;
    wrappers.push(name);
    i++;
    let positionals = w.positionals ?? 0;
    while (i < command.length) {
      const a = command[i];
      if (a === '--') {
        i++;
        break;
      }
      if (name === 'env' && /^(?:-S|--split-string)/.test(a)) {
        const at = a === '-S' || a === '--split-string' ? i + 1 : i;
        if (HAS_PLACEHOLDER.test(command[at] ?? '')) splitLine = at;
        i = at + 1;
        continue;
      }
      if (a.startsWith('-') && a.length > 1) i += w.valued.includes(a) ? 2 : 1;
      else if (w.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
      else if (positionals > 0) {
        positionals--;
        i++;
      } else break;
    }
  }
  const programAt = Math.min(i, command.length - 1);
  const program = programName(command[programAt] ?? '');
  const shape: TemplateShape = { programAt, program, wrappers, ...(splitLine !== undefined ? { splitLine } : {}) };
  const code = codeArgument(command, programAt, program);
  if (code) shape.code = { ...code, fromText: HAS_PLACEHOLDER.test(command.slice(code.at, code.end).join(' ')) };
  return shape;
}

/** Where an interpreter's code is: its flag, the argument holding it (the flag itself when attached) and its end. */
function codeArgument(command: readonly string[], programAt: number, program: string) {
  const shell = SHELLS.has(program);
  const found = (flagAt: number | undefined, at: number, ownArgs: boolean, end = at + 1) => ({
    at,
    end,
    ownArgs,
    ...(flagAt !== undefined ? { flag: command[flagAt] } : {}),
  });
  const spec = INTERPRETERS[program];
  let codeFile = false; // `awk -f prog.awk`, `sed -f script.sed`: the operands are files
  for (let k = programAt + 1; k < command.length; k++) {
    const a = command[k];
    if (program === 'cmd') {
      // cmd.exe: everything after /c (or /k) is the command line.
      if (/^\/[ck]$/i.test(a)) return found(k, k + 1, true, command.length);
      continue;
    }
    if (program === 'powershell' || program === 'pwsh') {
      if (/^[-/](?:c|command|ec|e|encodedcommand)$/i.test(a)) return found(k, k + 1, true, command.length);
      if (!a.startsWith('-')) return undefined;
      continue;
    }
    if (a === '--' || !/^[-+]./.test(a)) {
      // The options end: the code (awk, sed), else a script file or nothing.
      const at = a === '--' ? k + 1 : k;
      return spec?.firstOperand && !codeFile && at < command.length ? found(undefined, at, spec.ownArgs) : undefined;
    }
    if (shell) {
      if (a === '-o' || a === '+o') k++; // `-o pipefail`
      // `-c` is a flag of its own (`-lc`, `-ec`, `-c -e`, `--command` in fish): the code is the first argument that is no option.
      if (/^-[a-z]*c[a-z]*$/i.test(a) || a === '--command') {
        let at = k + 1;
        while (at < command.length && /^[-+]./.test(command[at])) at++;
        return found(k, at, true);
      }
      if (a.startsWith('--command=')) return found(k, k, true);
      continue;
    }
    if (!spec) return undefined;
    const long = spec.long?.find(l => a === l || a.startsWith(`${l}=`));
    if (long) return found(k, a === long ? k + 1 : k, spec.ownArgs);
    const cluster = /^-([A-Za-z]+)(.*)$/s.exec(a);
    const letter = cluster ? [...cluster[1]].findIndex(ch => spec.letters.includes(ch)) : -1;
    if (cluster && letter >= 0) {
      const attached = a.slice(2 + letter); // `-cprint(1)`, `-eprint`
      return found(k, attached ? k : k + 1, spec.ownArgs);
    }
    if (cluster && a.length === 2 && spec.valued?.includes(a[1])) {
      codeFile ||= a === '-f';
      k++; // `-W ignore`, `-v x=1`
    }
  }
  return undefined;
}

/** Why the template runs the model's text as code or as a command line, or undefined when it does not. */
export function codeFromText(command: readonly string[], viaStdin: boolean): string | undefined {
  const shape = templateShape(command);
  const through = shape.wrappers.length ? ` (through ${shape.wrappers.join(', ')})` : '';
  if (shape.splitLine !== undefined) return `env -S splits the model's text into a command line, so a step can run any command`;
  if (shape.code?.fromText) {
    const where =
      SHELLS.has(shape.program) || ['cmd', 'powershell', 'pwsh'].includes(shape.program)
        ? 'a shell line'
        : `the code ${command[shape.programAt]} runs${shape.code.flag ? ` (${shape.code.flag})` : ''}`;
    return `the model's text goes into ${where}${through}, so a step can run any command`;
  }
  if (viaStdin && shape.wrappers.includes('xargs'))
    return `xargs makes the model's text (on standard input) the arguments of ${command[shape.programAt]}, options included`;
  return undefined;
}

/**
 * The arguments (indices) that begin with a placeholder and that the program's option parser reads: not after a
 * "--" of the program's own, not an interpreter's code or the arguments after it. Where the model's text there
 * begins with "-", the runner passes "--" before the first of them (optionGuard).
 */
export function optionArguments(command: readonly string[]): number[] {
  const shape = templateShape(command);
  const out: number[] = [];
  for (let k = 1; k < command.length; k++) {
    if (k > shape.programAt && command[k] === '--') break;
    if (shape.code && k >= shape.code.at && shape.code.ownArgs) break;
    if (k !== shape.programAt && k !== shape.code?.at && STARTS_WITH_PLACEHOLDER.test(command[k])) out.push(k);
  }
  return out;
}

/**
 * The argument list with "--" before the first protected argument whose value begins with "-" (`values` are the
 * template's arguments with the placeholders filled in), or a refusal when a fixed argument after it is itself an
 * option (`["grep", "{input}", "-r", "."]`): after "--" it would no longer be one.
 */
export function optionGuard(command: readonly string[], values: readonly string[]): { args: string[] } | { refused: string } {
  const first = optionArguments(command).find(k => values[k].startsWith('-'));
  if (first === undefined) return { args: [...values] };
  const laterOption = command.slice(first + 1).find(a => /^-./.test(a) && !STARTS_WITH_PLACEHOLDER.test(a));
  if (laterOption)
    return {
      refused: `the input begins with "-" and ${JSON.stringify(command[first])} comes before the option ${JSON.stringify(laterOption)}, so the input would be read as an option`,
    };
  return { args: [...values.slice(0, first), '--', ...values.slice(first)] };
}
