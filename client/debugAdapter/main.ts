// The `art` debug adapter bundle (dist/debugAdapter.js): the standalone adapter over stdio for DAP clients other
// than VS Code (nvim-dap, Emacs dap-mode, ...): `node dist/debugAdapter.js`; the API key comes from the environment
// variable named by the `apiKeyEnv` launch argument, and `trusted` (default true) is the launch argument's. VS Code
// runs the same session class inline, from the runner services bundle (client/runnerServices.ts).
import { ArtDebugSession } from './debugSession';

const session = new ArtDebugSession();
process.on('SIGTERM', () => session.shutdown());
session.start(process.stdin, process.stdout);
