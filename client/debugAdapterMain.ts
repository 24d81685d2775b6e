// The `art` debug adapter bundle (dist/debugAdapter.js). Run as a program it is the standalone adapter over stdio
// for DAP clients other than VS Code (nvim-dap, Emacs dap-mode, ...): `node dist/debugAdapter.js`; the API key
// comes from the environment variable named by the `apiKeyEnv` launch argument, and `trusted` (default true) is
// the launch argument's. Required as a module it exports the session class: the extension loads it on the first
// debug session, so the runner (model client, tools, MCP SDK) costs nothing at activation.
import { ArtDebugSession } from './runner/debugSession';

export { ArtDebugSession };

if (require.main === module) {
  const session = new ArtDebugSession();
  process.on('SIGTERM', () => session.shutdown());
  session.start(process.stdin, process.stdout);
}
