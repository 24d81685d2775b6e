// One writer (core/common/ownedFiles.ts): no other product file (core/, server/, client/) writes a file or makes a
// folder by itself, so every write ART makes refuses a link it did not expect (issue 37). Checked on the TypeScript
// syntax of every product file: no import of node:fs's writing functions (writeFileSync, createWriteStream, mkdir,
// ...), no namespace or default import of the file system modules (which would hide them), no openSync with flags
// that write, and no writes through VS Code's file system API.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const WRITER = 'core/common/ownedFiles.ts';
const FS_MODULES = new Set(['fs', 'node:fs', 'fs/promises', 'node:fs/promises']);
/** What writes a file's content or makes a folder (renames, links and removals move or drop names, and stay). */
const WRITING = new Set([
  'writeFileSync',
  'writeFile',
  'appendFileSync',
  'appendFile',
  'createWriteStream',
  'mkdirSync',
  'mkdir',
  'copyFileSync',
  'copyFile',
  'cpSync',
  'cp',
  'symlinkSync',
  'symlink',
  'truncateSync',
  'truncate',
  'open',
]);

/** The TypeScript files under `folder`, relative to the checkout. */
const tsFiles = (folder: string) =>
  (readdirSync(join(root, folder), { recursive: true }) as string[])
    .filter(f => f.endsWith('.ts'))
    .map(f => join(folder, f))
    .sort();

/** Every way `file` writes by itself, as `line: what`. */
function writesOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier) && FS_MODULES.has(node.moduleSpecifier.text)) {
      const clause = node.importClause;
      if (clause?.name) at(node, `a default import of ${node.moduleSpecifier.text}`);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) at(node, `a namespace import of ${node.moduleSpecifier.text}`);
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements) {
          const name = (e.propertyName ?? e.name).text;
          if (WRITING.has(name)) at(e, `imports ${name}`);
        }
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      if (callee === 'require' && node.arguments.some(a => ts.isStringLiteral(a) && FS_MODULES.has(a.text))) at(node, 'requires the file system');
      if (/(^|\.)openSync$/.test(callee)) {
        const flags = node.arguments[1]?.getText(source) ?? "'r'";
        if (!/^'r'$|O_RDONLY/.test(flags) || /O_WRONLY|O_RDWR|O_CREAT|O_APPEND|O_TRUNC/.test(flags)) at(node, `openSync with flags ${flags}`);
      }
      if (/workspace\.fs\.(writeFile|createDirectory|copy|rename)$/.test(callee)) at(node, callee);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('one writer of files', () => {
  const files = ['core', 'server', 'client'].flatMap(tsFiles);

  test('the rule sees a write where there is one', () => {
    assert.ok(
      writesOf(WRITER).some(w => /imports mkdirSync/.test(w)),
      'the writer itself makes folders',
    );
  });

  test(`no product file but ${WRITER} writes a file or makes a folder`, () => {
    const found = files.filter(f => f !== WRITER).flatMap(writesOf);
    assert.deepEqual(found, [], `write through ${WRITER} (writeOwnedFile, openOwnedFile, makeOwnedFolder, moveOwnedFile):\n${found.join('\n')}`);
  });
});
