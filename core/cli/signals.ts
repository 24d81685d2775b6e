// Ctrl-C, `kill` and a closed terminal during a long command (`art run`, `art eval`): the first signal asks the work
// to stop (the running tool is cancelled, the Python sandbox's processes and scratch folders go with it, MCP servers
// stop and traces are closed before the process exits); a second one exits at once, with the shell's code for it.
const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** Runs `work` with SIGINT, SIGTERM and SIGHUP calling `stop` (once; a second signal exits). */
export async function stoppable<T>(stop: (signal: NodeJS.Signals) => void, work: () => Promise<T>): Promise<T> {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(128 + SIGNALS[signal]);
    stopping = true;
    stop(signal);
  };
  const names = Object.keys(SIGNALS) as NodeJS.Signals[];
  for (const s of names) process.on(s, onSignal);
  try {
    return await work();
  } finally {
    for (const s of names) process.removeListener(s, onSignal);
  }
}
