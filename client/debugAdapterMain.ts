// The `art` debug adapter bundle (dist/debugAdapter.js). Run as a program it is the standalone adapter over stdio
// for DAP clients other than VS Code (nvim-dap, Emacs dap-mode, ...): `node dist/debugAdapter.js`; the API key
// comes from the environment variable named by the `apiKeyEnv` launch argument, and `trusted` (default true) is
// the launch argument's. Required as a module it exports the session class: the extension loads it on the first
// debug session, so the runner (model client, tools, MCP SDK) costs nothing at activation.
import { parseArt } from '../core/art/parse';
import { listDemonstrations, testProgram as testLibraryProgram, type ProgramTest } from '../core/runner/libraryTest';
import { promptOfRun } from '../core/runner/launch';
import { createToolRegistry } from '../core/tools/registry';
import { ArtDebugSession } from './runner/debugSession';

export { ArtDebugSession };

/** "ART: Show Prompt" outside a debug session: the prompt a run of a configuration would send, or a trace's. */
export { promptOfRun };

/** Programs as tests for the Test Explorer (client/runner/libraryTests.ts): loaded with the runner on first use. */
export const libraryTests = {
  listDemonstrations: (text: string) => listDemonstrations(parseArt(text)),
  async testProgram(
    text: string,
    index: number,
    opts: { workspaceRoot: string; pythonPath?: string; corpus?: string; tools?: string; signal?: AbortSignal },
  ): Promise<ProgramTest> {
    const tools = await createToolRegistry({
      workspaceRoot: opts.workspaceRoot,
      trusted: true,
      pythonPath: opts.pythonPath,
      corpusDir: opts.corpus,
      toolsFile: opts.tools,
    });
    try {
      return await testLibraryProgram(parseArt(text), index, { tools, signal: opts.signal });
    } finally {
      await tools.dispose();
    }
  },
};
export type LibraryTestsModule = typeof libraryTests;

if (require.main === module) {
  const session = new ArtDebugSession();
  process.on('SIGTERM', () => session.shutdown());
  session.start(process.stdin, process.stdout);
}
