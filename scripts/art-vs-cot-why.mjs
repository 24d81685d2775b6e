// Why the answers of an evaluation were wrong, counted from the runs' traces (scripts/art-vs-cot.mjs prints it under
// the table of docs/evaluation.md). Each wrong example gets the first of these that fits:
//
//   no answer            the run ended without `Ans:` (the reason counted: malformed, no-progress, ...)
//   no tool called       (tools library) the model answered without calling a tool
//   a tool failed        (tools library) the calculator could not read its input, the code raised or printed nothing
//   numbers copied wrong a number in a calculator input, in the generated code, or in a chain-of-thought equation is
//                        in neither the problem nor an earlier result
//   arithmetic wrong     (chain of thought) an equation `a op b = c` of the chain is false
//   right, then went on  the target was a result along the way (a tool output, a result of the chain), and the model
//                        went on past it (a step too many, as in the demonstrations' two-step programs)
//   answer not the result the answer is not the last tool output (tools) or the last result of the chain (CoT)
//   wrong operations     the numbers were the problem's and the arithmetic right, but not the arithmetic the problem asks
//
// Usage: node scripts/art-vs-cot-why.mjs RESULTS.jsonl [LABEL]
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const jsonLines = path =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(l => l.trim())
    .map(l => JSON.parse(l));

/** The numbers in a text (1,200 read as 1200; a trailing period is not a decimal point). */
export function numbers(text) {
  return [...String(text).matchAll(/-?\d[\d,]*(?:\.\d+)?/g)].map(m => Number(m[0].replace(/,/g, ''))).filter(Number.isFinite);
}

const near = (a, b) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b));

/** Equations `a op b = c` of a chain of thought whose result is wrong. */
export function falseEquations(text) {
  const out = [];
  for (const m of String(text).matchAll(/(-?\d[\d,]*(?:\.\d+)?)\s*([-+*/x×÷])\s*(-?\d[\d,]*(?:\.\d+)?)\s*=\s*(-?\d[\d,]*(?:\.\d+)?)/g)) {
    const [a, b, c] = [m[1], m[3], m[4]].map(x => Number(x.replace(/,/g, '')));
    const op = m[2];
    const v = op === '+' ? a + b : op === '-' ? a - b : op === '/' || op === '÷' ? a / b : a * b;
    if (!near(v, c)) out.push(m[0]);
  }
  return out;
}

/** The reason an example is wrong, from its result and its trace's records. */
export function whyWrong(result, records, kind) {
  const end = records.find(r => r.t === 'end');
  if (result.answer === null || result.answer === undefined || (end && end.reason !== 'finished'))
    return `no answer (${end?.reason ?? result.end ?? 'error'})`;
  const given = new Set(numbers(result.input));
  const text = end?.text ?? '';
  const program = text.slice(text.lastIndexOf('\nInput:') + 1);
  const answer = numbers(result.answer).at(-1);
  if (kind === 'tools') {
    const calls = records.filter(r => r.t === 'tool').map(r => r.call);
    if (!calls.length) return 'no tool called';
    if (calls.some(c => c.error || (c.output ?? '').trim() === '')) return 'a tool failed';
    const known = new Set(given);
    for (const c of calls) {
      // What the model wrote for the tool: the calculator's expression, or the code a code step ran.
      const written = c.tool === 'code execute' ? (c.previousAnswer ?? c.input) : c.input;
      const used = c.tool === 'code execute' ? numbers(written.replace(/^\s*#.*$/gm, '')) : numbers(written);
      if (used.some(n => !known.has(n) && ![0, 1, 2, 10, 100, 1000].includes(n))) return 'numbers copied wrong';
      for (const n of numbers(c.output)) known.add(n);
    }
    const target = numbers(result.target).at(-1);
    if (target !== undefined && calls.some(c => numbers(c.output).some(n => near(n, target)))) return 'right, then went on';
    const last = numbers(calls.at(-1).output).at(-1);
    if (answer === undefined || last === undefined || !near(answer, last)) return 'answer not the result';
    return 'wrong operations';
  }
  if (falseEquations(program).length) return 'arithmetic wrong';
  const chain = program.slice(program.indexOf('#1:'));
  const results = new Set(given);
  for (const m of chain.matchAll(/=\s*(-?\d[\d,]*(?:\.\d+)?)/g)) results.add(Number(m[1].replace(/,/g, '')));
  const operands = [...chain.matchAll(/(-?\d[\d,]*(?:\.\d+)?)\s*[-+*/x×÷]\s*(?=-?\d)/g)].map(m => Number(m[1].replace(/,/g, '')));
  if (operands.some(n => !given.has(n) && !results.has(n) && ![0, 1, 2, 10, 100, 1000].includes(n))) return 'numbers copied wrong';
  const target = numbers(result.target).at(-1);
  if (target !== undefined && [...chain.matchAll(/=\s*(-?\d[\d,]*(?:\.\d+)?)/g)].some(m => near(Number(m[1].replace(/,/g, '')), target)))
    return 'right, then went on';
  const lastResult = [...chain.matchAll(/=\s*(-?\d[\d,]*(?:\.\d+)?)/g)].at(-1);
  if (answer === undefined || !lastResult || !near(answer, Number(lastResult[1].replace(/,/g, '')))) return 'answer not the result';
  return 'wrong operations';
}

/** The reasons of one results file's wrong examples, counted, as Markdown lines. */
export function explainFailures(resultsPath, label, kind = /tools/.test(resultsPath) ? 'tools' : 'cot') {
  const results = jsonLines(resultsPath).filter(r => r.kind !== 'art-evaluation');
  const wrong = results.filter(r => !r.exact);
  const counts = new Map();
  const examples = new Map();
  for (const r of wrong) {
    const trace = r.trace ? resolve(dirname(resultsPath), r.trace) : undefined;
    const records = trace && existsSync(trace) ? jsonLines(trace) : [];
    const why = whyWrong(r, records, kind);
    counts.set(why, (counts.get(why) ?? 0) + 1);
    if (!examples.has(why)) examples.set(why, r.id);
  }
  const lines = [`${label}: ${wrong.length} of ${results.length} wrong`];
  for (const [why, n] of [...counts].sort((a, b) => b[1] - a[1])) lines.push(`- ${why}: ${n} (e.g. \`${examples.get(why)}\`)`);
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv[2]) {
    console.error('usage: node scripts/art-vs-cot-why.mjs RESULTS.jsonl [LABEL]');
    process.exit(2);
  }
  console.log(explainFailures(resolve(process.argv[2]), process.argv[3] ?? process.argv[2]));
}
