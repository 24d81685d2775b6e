// Integration tests inside the VS Code extension host. This module's run() is what both harnesses call:
// code-server's smoke-test driver (test/vscode/run-integration.mjs) and @vscode/test-electron
// (test/vscode/run-electron.mjs). It is bundled by test/vscode/build-suite.mjs to dist/test/vscode/suite.js.
import Mocha from 'mocha';
import * as vscode from 'vscode';

export async function run(): Promise<void> {
  // ART_TEST_GREP (set by the harness's --grep) runs only the tests whose full title matches.
  const grep = process.env.ART_TEST_GREP;
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, reporter: 'spec', ...(grep ? { grep } : {}) });
  // Install describe/it for the test modules below, as mocha does for each file it loads itself.
  mocha.suite.emit('pre-require', globalThis, 'art-studio-integration', mocha);
  await import('./activation.test');
  await import('./diagnostics.test');
  await import('./codeActions.test');
  await import('./completion.test');
  await import('./navigation.test');
  await import('./symbols.test');
  await import('./debug.test');
  await import('./codeLens.test');
  await import('./libraryTests.test');
  await import('./history.test');
  await import('./evaluation.test');
  await import('./evaluationsView.test');
  await import('./improve.test');
  await import('./showPrompt.test');
  await import('./samples.test');
  await import('./lmTools.test');
  await import('./vscodeModel.test');
  await import('./keyHosts.test');
  await import('./telemetry.test');

  console.log(`ART Studio integration suite (VS Code ${vscode.version})`);
  const { passes, failures } = await new Promise<{ passes: number; failures: number }>(resolve => {
    const runner = mocha.run(failures => resolve({ passes: runner.stats?.passes ?? 0, failures }));
  });
  // The harnesses and scripts/test-all.mjs read this line.
  console.log(`integration: ${passes} passed, ${failures} failed`);
  if (failures > 0) throw new Error(`${failures} integration test(s) failed`);
}
