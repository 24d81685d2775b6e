// The workspace tool file as the language server reads it: its problems are published as diagnostics on the file
// itself (a shell line built from the model's text is a warning at its "command"), and cleared once fixed.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { ToolFileProblem } from '../../../core/tools/toolsFile';
import { loadToolFile } from '../../../server/toolFile';
import { WorkspaceTools } from '../../../server/workspaceTools';

describe('tool file diagnostics (in-process)', () => {
  test('a shell line is a warning on the tool file; fixing it clears the warning', async () => {
    const root = mkdtempSync(join(tmpdir(), 'art-toolfile-'));
    const file = join(root, '.art-tools.json');
    writeFileSync(file, JSON.stringify({ tools: [{ kind: 'command', name: 'find', command: ['sh', '-c', 'grep {input} notes.txt'] }] }));
    const published: { path: string; problems: readonly ToolFileProblem[] }[] = [];
    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const tools = new WorkspaceTools(
      loadToolFile,
      quiet as never,
      () => undefined,
      (path, _text, problems) => published.push({ path, problems }),
    );
    await tools.configure(root, '.art-tools.json', false);
    assert.equal(published.at(-1)?.path, file);
    assert.deepEqual(
      published.at(-1)?.problems.map(p => p.severity),
      ['warning'],
    );
    assert.ok(tools.catalog.has('find'), 'the tool is still usable');
    writeFileSync(file, JSON.stringify({ tools: [{ kind: 'command', name: 'find', command: ['grep', '-F', '--', '{input}', 'notes.txt'] }] }));
    await tools.reload();
    assert.deepEqual(published.at(-1)?.problems, [], 'the warning is cleared');
    // A placeholder before other arguments (the model's text read as an option) is a warning on the file too.
    writeFileSync(file, JSON.stringify({ tools: [{ kind: 'command', name: 'find', command: ['sort', '{input}', 'list.txt'] }] }));
    await tools.reload();
    assert.deepEqual(
      published.at(-1)?.problems.map(p => [p.severity, p.message.split(',')[0]]),
      [['warning', 'tools[0].command[1]: "{input}" comes before other arguments']],
    );
    tools.dispose();
  });
});
