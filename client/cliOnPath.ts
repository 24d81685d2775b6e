// `art` in the terminals of the workspace, as the README's CLI section writes it, with nothing installed: a launcher
// of the extension's own command line (dist/cli.js, run by the extension host's Node: Electron's, as Node) in the
// extension's storage, its folder put first on the PATH of the terminals VS Code opens (environmentVariableCollection).
import { chmodSync } from 'node:fs';
import { makeOwnedFolder, writeOwnedFile } from '../core/common/ownedFiles';
import { delimiter, join } from 'node:path';
import type * as vscode from 'vscode';

/** The command line the launcher runs, relative to the extension's folder: the VSIX must carry it (.vscodeignore). */
export const CLI_ENTRY = 'dist/cli.js';

const quoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Writes `DIR/art`, a shell launcher of `cli` run by `node` (as Node when it is Electron); returns its path. */
export function writeCliLauncher(dir: string, cli: string, node: string): string {
  makeOwnedFolder(dir);
  const path = join(dir, 'art');
  writeOwnedFile(
    path,
    `#!/bin/sh\n# ART Studio's art command line (${cli})\nELECTRON_RUN_AS_NODE=1 exec ${quoted(node)} ${quoted(cli)} "$@"\n`,
    'replace',
    {
      mode: 0o755,
    },
  );
  chmodSync(path, 0o755);
  return path;
}

/** Puts `art` on the PATH of the workspace's terminals (not on Windows, whose shells run no such launcher). */
export function putCliOnPath(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  if (process.platform === 'win32') return;
  try {
    const dir = join(context.globalStorageUri.fsPath, 'bin');
    writeCliLauncher(dir, context.asAbsolutePath(CLI_ENTRY), process.execPath);
    context.environmentVariableCollection.prepend('PATH', `${dir}${delimiter}`);
    context.environmentVariableCollection.description = 'ART Studio: the `art` command line in terminals';
  } catch (e) {
    log.warn(`the art command line is not on the terminals' PATH: ${(e as Error).message}`);
  }
}
