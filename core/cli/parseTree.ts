// `art parse FILE --json`: the syntax tree with LSP-style ranges, for scripts and for people debugging a library.
import { agentSummary, parseAgentFile } from '../agent';
import { parseArt, programTitle } from '../art';
import { LineIndex, type Span } from '../common/text';
import { CliError, languageOf, readSource } from './files';

export function parseTree(path: string): unknown {
  const text = readSource(path);
  const index = new LineIndex(text);
  const r = (s: Span | null | undefined) => (s ? index.range(s) : null);
  if (languageOf(path) === 'art') {
    const doc = parseArt(text);
    return {
      file: path,
      language: 'art',
      preamble: doc.preamble ? { text: doc.preamble.text, range: r(doc.preamble.span) } : null,
      programs: doc.programs.map((p, i) => ({
        name: programTitle(p, i),
        taskName: p.description?.taskName ?? null,
        description: p.description ? { text: p.description.text, range: r(p.description.span) } : null,
        input: p.input ? { text: p.input.text, range: r(p.input.span) } : null,
        template: p.template,
        range: r(p.span),
        steps: p.steps.map(s => ({
          number: s.number,
          name: s.name,
          isEoq: s.isEoq,
          instruction: s.instruction,
          range: r(s.span),
          nameRange: r(s.nameSpan),
          answer: s.answer ? { number: s.answer.number, text: s.answer.text, range: r(s.answer.span) } : null,
        })),
        answer: p.ans ? { text: p.ans.text, range: r(p.ans.span) } : null,
        references: p.references.map(x => ({ number: x.number, range: r(x.span) })),
      })),
    };
  }
  const file = parseAgentFile(text);
  if (file.tooDeep) {
    const at = index.position(file.problems[0].span.start);
    throw new CliError(`${path}:${at.line + 1}:${at.character + 1}: ${file.problems[0].message}`);
  }
  return {
    file: path,
    language: 'agent',
    agents: file.agents.map(a => ({ ...agentSummary(a), range: r(a.span) })),
  };
}
