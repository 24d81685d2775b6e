// Processes a workspace tool starts (command tools, MCP servers) die with the host: killed with -9, the debug
// adapter or `art run` must not leave a tool running, nor a child it started in a session of its own (setsid). Where
// the machine allows it, the tool runs as the init of a PID namespace of its own, under `setpriv --pdeathsig KILL`
// (so `unshare` dies with the host) and `unshare --kill-child` (so the namespace's init dies with `unshare`, and the
// kernel kills every process of the namespace with it); else under `setpriv --pdeathsig KILL` alone (the tool
// itself dies with the host, not what it started away from its process group); else as it is. Checked once per
// process. Unlike the Python sandbox, nothing else is isolated: the tool sees the user's files and network.
import { execFile } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

export type ContainmentLevel = 'pid-namespace' | 'parent-death' | 'none';

/** The level, and the wrappers by absolute path (the tool's own PATH may not hold them). */
export interface Containment {
  level: ContainmentLevel;
  setpriv?: string;
  unshare?: string;
}

/** unshare's flags for a PID namespace: a user namespace (the user mapped to itself) when not root. */
function unshareFlags(): string[] {
  const root = process.getuid?.() === 0;
  return [...(root ? [] : ['--user', '--map-current-user']), '--pid', '--fork', '--kill-child'];
}

let detected: Promise<Containment> | null = null;

const works = (cmd: string, args: string[]) =>
  new Promise<boolean>(done => execFile(cmd, args, { env: { PATH: '/usr/bin:/bin' }, timeout: 5000 }, err => done(!err)));

/** How the tools' processes are tied to the host here (checked once per process). */
export function detectContainment(): Promise<Containment> {
  if (process.platform !== 'linux') return Promise.resolve({ level: 'none' });
  detected ??= (async (): Promise<Containment> => {
    const path = { PATH: `${process.env.PATH ?? ''}${delimiter}/usr/bin${delimiter}/bin` };
    const setpriv = findProgram('setpriv', '/', path);
    const unshare = findProgram('unshare', '/', path);
    if (!setpriv) return { level: 'none' };
    if (unshare && (await works(setpriv, ['--pdeathsig', 'KILL', '--', unshare, ...unshareFlags(), '--', 'true'])))
      return { level: 'pid-namespace', setpriv, unshare };
    if (await works(setpriv, ['--pdeathsig', 'KILL', '--', 'true'])) return { level: 'parent-death', setpriv };
    return { level: 'none' };
  })();
  return detected;
}

/** The command line that runs `program args` (program: an absolute path, see findProgram) contained as `c` allows. */
export function containedCommand(c: Containment, program: string, args: string[]): { command: string; args: string[] } {
  if (c.level === 'none' || !c.setpriv) return { command: program, args };
  const inner = c.level === 'pid-namespace' && c.unshare ? [c.unshare, ...unshareFlags(), '--', program, ...args] : [program, ...args];
  return { command: c.setpriv, args: ['--pdeathsig', 'KILL', '--', ...inner] };
}

/**
 * The program a command names, found as spawn would find it (a path against `cwd`, a name on the PATH of `env`),
 * or undefined when there is none: run through a wrapper, a missing program would only show as the wrapper's error.
 */
export function findProgram(command: string, cwd: string, env: Record<string, string | undefined>): string | undefined {
  const executable = (p: string) => {
    try {
      accessSync(p, constants.X_OK);
      return statSync(p).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/')) {
    const p = isAbsolute(command) ? command : resolve(cwd, command);
    return executable(p) ? p : undefined;
  }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(isAbsolute(dir) ? dir : resolve(cwd, dir), command);
    if (executable(p)) return p;
  }
  return undefined;
}
