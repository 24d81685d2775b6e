// The floor plan of the product code (core/, server/, client/), checked from its imports as the TypeScript compiler
// reads them (type-only imports and `import('...')` types included): no import cycle among its files, the layers
// each folder's README.md states (what it may import), one convention for barrels (only the two languages, core/art
// and core/agent, have an index.ts: their public API; every other folder is imported file by file), no file over
// 800 lines and no folder over 15% of the product's lines. ESLint's no-restricted-imports (eslint.config.mjs) keeps
// vscode and the LSP/DAP libraries out of core/ and vscode out of client/debugAdapter/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(import.meta.dirname, '..');
const PRODUCT = ['core', 'server', 'client'];
const MAX_FILE_LINES = 800;
const MAX_FOLDER_SHARE = 0.15;

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (name.endsWith('.ts')) out.push(relative(root, p));
  }
  return out;
}

const files = PRODUCT.flatMap(d => walk(join(root, d)));
const fileSet = new Set(files);

/** The product file a relative specifier names, or undefined (a package, a generated parser's .js). */
function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = relative(root, resolve(root, dirname(from), spec));
  for (const c of [base, `${base}.ts`, `${base}.d.ts`, join(base, 'index.ts'), base.replace(/\.js$/, '.d.ts')]) {
    if (fileSet.has(c)) return c;
  }
  return undefined;
}

/** Every module a file imports or re-exports, as written, type-only and `import('...')` types included. */
function specifiers(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return info.importedFiles.map(f => f.fileName);
}

const imports = new Map<string, { spec: string; target?: string }[]>(
  files.map(f => [f, specifiers(f).map(spec => ({ spec, target: resolveImport(f, spec) }))]),
);
const edges = (f: string): string[] => [...new Set(imports.get(f)!.flatMap(i => (i.target ? [i.target] : [])))];

/** Cycles among the product files, each as the path that closes it (Tarjan's strongly connected components). */
function cycles(): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || edges(v).includes(v)) found.push(pathWithin(new Set(component), v));
    }
  };
  for (const f of files) if (!idx.has(f)) visit(f);
  return found;
}

/** One cycle through `start` inside a strongly connected component, for the message. */
function pathWithin(component: Set<string>, start: string): string[] {
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of edges(v)) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(prev.get(path[0])!);
        return [...path, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

/**
 * What each folder may not import (its README.md says what it may): a prefix of the importing files, the prefixes
 * they must not import, and the exceptions.
 */
const LAYERS: { from: string; not: string[]; except?: string[]; why: string }[] = [
  { from: 'core/', not: ['server/', 'client/'], why: 'core is plain TypeScript that the server and the client translate' },
  { from: 'server/', not: ['client/'], why: 'the server runs without the extension' },
  { from: 'core/common/', not: ['core/'], except: ['core/common/'], why: 'core/common is the bottom layer' },
  { from: 'core/model/', not: ['core/'], except: ['core/model/', 'core/common/'], why: 'core/model is endpoint clients only' },
  {
    from: 'core/settings/',
    not: ['core/'],
    except: ['core/settings/', 'core/common/'],
    why: 'the settings declaration is read by the server, the client and the generator',
  },
  {
    from: 'core/art/',
    not: ['core/'],
    except: ['core/art/', 'core/common/'],
    why: 'the .art language stands on its own',
  },
  {
    from: 'core/agent/',
    not: ['core/'],
    except: ['core/agent/', 'core/common/'],
    why: 'the .agent language stands on its own',
  },
  {
    from: 'core/trace/',
    not: ['core/engine/', 'core/protocols/', 'core/replay/', 'core/launch/', 'core/sampling/', 'core/evaluation/'],
    why: "the trace is data (schema, writer, reader): of the engine it knows only the run's vocabulary",
  },
  {
    from: 'core/protocols/',
    not: ['core/engine/', 'core/prompt/', 'core/launch/', 'core/replay/', 'core/sampling/', 'core/evaluation/'],
    why: 'the engine drives the protocols, not the other way round',
  },
  {
    from: 'core/prompt/',
    not: ['core/engine/', 'core/launch/', 'core/replay/', 'core/sampling/', 'core/evaluation/'],
    why: 'a prompt is text for the engine to send: the runs that send it are built in launch',
  },
  {
    from: 'core/engine/',
    not: ['core/replay/', 'core/launch/', 'core/sampling/', 'core/evaluation/', 'core/cli/'],
    why: 'the engine is started by launch, sampling, evaluation and the shells',
  },
  {
    from: 'core/',
    not: ['core/improve/'],
    except: ['core/improve/', 'core/cli/', 'core/agentTools/'],
    why: 'core/improve stands on the evaluation: only it, the agent tools and the shells import it',
  },
  {
    from: 'core/agentTools/',
    not: ['core/cli/'],
    why: 'the agent tools are below their shells: art mcp (core/cli) and the editor (client/lm) import them, not the other way round',
  },
  { from: 'client/lm/', not: ['core/cli/'], why: "the editor's language model tools stand on the agent tools, not on the CLI" },
  { from: 'client/debugAdapter/', not: ['client/'], except: ['client/debugAdapter/'], why: 'the adapter bundle has nothing of the extension' },
  { from: 'client/webview/', not: ['client/', 'server/'], except: ['client/webview/'], why: 'a webview page runs in the browser' },
];

/** The barrels: a folder's index.ts is its public API; only the two languages have one. */
const BARRELS = ['core/agent/index.ts', 'core/art/index.ts'];

describe('architecture of the product code', () => {
  test('the product files are found', () => {
    assert.ok(files.length > 100 && fileSet.has('core/engine/runner.ts'), `found ${files.length} files`);
  });

  test('no import cycle among core/, server/ and client/ (type-only imports included)', () => {
    const found = cycles().map(c => c.join(' -> '));
    assert.deepEqual(found, [], `import cycles (break each by moving the shared piece down a layer):\n${found.join('\n')}`);
  });

  test('each folder imports only what its layer allows (its README.md)', () => {
    const broken: string[] = [];
    for (const [file, list] of imports) {
      for (const { spec, target } of list) {
        if (!target) continue;
        for (const rule of LAYERS) {
          if (!file.startsWith(rule.from)) continue;
          if (rule.except?.some(e => target.startsWith(e))) continue;
          if (rule.not.some(n => target.startsWith(n))) broken.push(`${file} imports ${spec} (${target}): ${rule.why}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });

  test('barrels: only core/art and core/agent have an index.ts, and no file imports its own folder through it', () => {
    const barrels = files.filter(f => /(^|\/)index\.ts$/.test(f));
    assert.deepEqual(barrels, BARRELS, 'a folder other than core/art and core/agent is imported file by file: remove its index.ts');
    const inward: string[] = [];
    for (const [file, list] of imports) {
      for (const { spec, target } of list) {
        if (target && BARRELS.includes(target) && `${dirname(file)}/`.startsWith(`${dirname(target)}/`))
          inward.push(`${file} imports ${spec}: import the file itself`);
      }
    }
    assert.deepEqual(inward, []);
  });

  test('every folder of core/ and client/ says in a README.md what it is and what it may import', () => {
    const folders = ['core', 'client'].flatMap(d =>
      readdirSync(join(root, d))
        .filter(n => statSync(join(root, d, n)).isDirectory())
        .map(n => `${d}/${n}`),
    );
    const missing = folders.filter(f => !existsSync(join(root, f, 'README.md')));
    assert.deepEqual(missing, [], 'add a README.md of two lines: what the folder is, what it may import');
  });

  test(`no product file over ${MAX_FILE_LINES} lines, no folder over ${MAX_FOLDER_SHARE * 100}% of the product's lines`, () => {
    const lines = new Map(files.map(f => [f, readFileSync(join(root, f), 'utf8').split('\n').length - 1]));
    const long = [...lines].filter(([, n]) => n > MAX_FILE_LINES).map(([f, n]) => `${f}: ${n} lines (split it)`);
    assert.deepEqual(long, []);
    const total = [...lines.values()].reduce((a, b) => a + b, 0);
    const byFolder = new Map<string, number>();
    for (const [f, n] of lines) {
      const parts = f.split('/');
      const folder = parts[0] === 'server' || parts.length === 2 ? parts[0] : `${parts[0]}/${parts[1]}`;
      byFolder.set(folder, (byFolder.get(folder) ?? 0) + n);
    }
    const big = [...byFolder]
      .filter(([, n]) => n > total * MAX_FOLDER_SHARE)
      .map(([f, n]) => `${f}: ${n} of ${total} lines (${((100 * n) / total).toFixed(1)}%): split it by idea`);
    assert.deepEqual(big, []);
  });
});
