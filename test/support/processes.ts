// Linux process inspection for the tests that check nothing outlives a step or its host: reads /proc.
import { readFileSync, readdirSync } from 'node:fs';

/** Host pids of the processes whose command line contains `needle` (arguments joined by NUL). */
export function processesWith(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1').includes(needle) && !zombie(Number(name))) out.push(Number(name));
    } catch {
      /* gone */
    }
  }
  return out;
}

export function zombie(pid: number): boolean {
  try {
    return / Z /.test(readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\)/, ''));
  } catch {
    return true;
  }
}

/** Every process below `root` (host pids), from /proc. */
export function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1')
        .replace(/^.*\) /, '')
        .split(' ');
      parent.set(Number(name), Number(stat[1]));
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const [c, p] of parent)
      if (p === pid) {
        out.push(c);
        walk(c);
      }
  };
  walk(root);
  return out;
}
