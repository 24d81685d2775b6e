// Deep nesting: every pass over an `.agent` file (reading, checking, compiling, formatting, monitoring, the runner's
// launch) either handles the depth or reports the one "nested too deeply" diagnostic; none overflows the stack.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  agentSummary,
  checkAgentFile,
  compileAgent,
  formatAgentText,
  MAX_NESTING,
  monitorText,
  parseAgentFile,
  readSExprs,
} from '../../../core/agent';
import { prepareRun } from '../../../core/launch/launch';
import { LaunchError } from '../../../core/launch/options';
import { deepAgent } from './helpers';

const TOO_DEEP = /^Lists are nested too deeply to read \(the limit is \d+ levels\)/;

describe('deep nesting', () => {
  for (const depth of [100, MAX_NESTING]) {
    test(`${depth} levels: read, checked, compiled, formatted and monitored`, () => {
      const text = deepAgent(depth);
      const file = parseAgentFile(text);
      assert.equal(file.tooDeep, false);
      assert.deepEqual(checkAgentFile(file), []);
      const agent = file.agents[0];
      const compiled = compileAgent(agent);
      assert.equal(agentSummary(agent).name, 'deep');
      assert.equal(monitorText(compiled, '[A] x\n'.repeat(depth - 1), { complete: true }).valid, true);
      const formatted = formatAgentText(text);
      assert.ok(formatted);
      assert.deepEqual(parseAgentFile(formatted).problems, []);
    });
  }

  for (const depth of [MAX_NESTING + 1, 2_999, 3_000, 4_999, 100_000]) {
    test(`${depth} levels: one "nested too deeply" diagnostic from every pass, no crash`, async () => {
      const text = deepAgent(depth);
      const sexprs = readSExprs(text);
      assert.equal(sexprs.tooDeep, true);
      assert.equal(sexprs.forms.length, 0);
      const file = parseAgentFile(text);
      assert.equal(file.tooDeep, true);
      assert.deepEqual(file.agents, []);
      const diagnostics = checkAgentFile(file);
      assert.equal(diagnostics.length, 1);
      assert.equal(diagnostics[0].severity, 'error');
      assert.match(diagnostics[0].message, TOO_DEEP);
      // Where the grammar could read the file, the diagnostic points at the first list past the limit.
      if (depth <= 3_000) assert.equal(text.slice(diagnostics[0].span.start, diagnostics[0].span.start + 6), '(next ');
      assert.equal(formatAgentText(text), null);
      await assert.rejects(
        prepareRun({
          program: 'deep.agent',
          text,
          input: 'q',
          trusted: true,
          baseURL: 'http://127.0.0.1:9/v1',
          model: 'm',
          cwd: mkdtempSync(join(tmpdir(), 'art-deep-')),
        }),
        (e: Error) => e instanceof LaunchError && /nested too deeply/.test(e.message),
      );
    });
  }
});
