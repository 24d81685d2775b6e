// The corpus suite: the six agent specs of Crouse et al. (2023) and the paper's ReACT trace. They parse, check,
// compile and are formatted; the project's fixture specs (which the unit tests and the snippets follow) are the
// paper's, form for form; the paper's trace follows the ReACT spec, and its observations are what the project's
// Search and Lookup give over examples/corpus.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { checkAgentFile, compileAgent, formatAgentText, monitorText, parseAgentFile } from '../../core/agent';
import { createReactTools } from '../../core/tools/react';
import { CORPUS, requireCorpus } from '../support/corpus';
import { fixturePath } from '../support/fixtures';

requireCorpus();

const agents = readdirSync(join(CORPUS, 'agents'))
  .filter(f => f.endsWith('.agent'))
  .sort();
const read = (rel: string) => readFileSync(join(CORPUS, rel), 'utf8');
/** A spec without comments and layout: what it says, form for form. */
const normalize = (t: string) => t.replace(/;.*$/gm, '').replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();

describe('corpus agents', () => {
  test('the six paper agents are there', () => {
    assert.deepEqual(agents, ['cot.agent', 'direct.agent', 'pass.agent', 'react.agent', 'reflexion.agent', 'rewoo.agent']);
  });

  for (const f of agents) {
    test(`agents/${f} parses, checks clean, compiles with one initial and one final state, and is formatted`, () => {
      const text = read(`agents/${f}`);
      const file = parseAgentFile(text);
      assert.deepEqual(file.problems, []);
      assert.deepEqual(checkAgentFile(file), []);
      const c = compileAgent(file.agents[0]);
      assert.equal(c.initialStates.length, 1, 'one initial state');
      assert.equal(c.finalStates.length, 1, 'one final state');
      assert.equal(formatAgentText(text), text);
    });

    test(`the fixture ${f} is the paper's spec, form for form`, () => {
      assert.equal(normalize(readFileSync(fixturePath(`agents/${f}`), 'utf8')), normalize(read(`agents/${f}`)));
    });
  }
});

describe("the paper's ReACT trace", () => {
  const trace = read('traces/react-milhouse.txt');

  test('follows the ReACT spec to its final state', () => {
    const react = compileAgent(parseAgentFile(read('agents/react.agent')).agents[0]);
    const r = monitorText(react, trace, { complete: true });
    assert.equal(r.violation, null);
    assert.deepEqual(r.states, ['Ques', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Tht', 'Act', 'Act-Inp', 'Obs', 'Final-Tht', 'Ans']);
  });

  test('every observation is what Search / Lookup give over examples/corpus', async () => {
    const tools = createReactTools({ corpusDir: join(__dirname, '../../examples/corpus') });
    const steps = [...trace.matchAll(/\[Action\] (.+)\n\[Action Input\] (.+)\n\[Observation\] (.+)/g)].map(m => ({
      action: m[1].trim(),
      input: m[2].trim(),
      observation: m[3].trim(),
    }));
    assert.deepEqual(
      steps.map(s => s.action),
      ['Search', 'Lookup'],
    );
    for (const s of steps) {
      const r = await (s.action === 'Search' ? tools.search : tools.lookup).run({ instruction: s.input }, { signal: new AbortController().signal });
      assert.ok(r.ok, JSON.stringify(r));
      assert.equal(r.output, s.observation);
    }
  });
});
