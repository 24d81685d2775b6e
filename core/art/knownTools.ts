// The tool names of the ART reference implementation, kept as data. Checks (`tool-name-typo`), completion and
// hover read this list; user tools declared in a workspace tool file are added to it at run time.
import { normalizeName } from './ast';

export interface ToolInfo {
  /** The name as written in `[name]`. */
  name: string;
  description: string;
  /** How the tool reads its input. */
  input: string;
  /** Where the tool comes from: the ART reference, a ReACT action, MultiTool-CoT, or a workspace tool file. */
  origin: 'art' | 'react' | 'multitool' | 'user';
}

export const BUILTIN_TOOLS: readonly ToolInfo[] = [
  {
    name: 'search',
    origin: 'art',
    description:
      "Full-text search (BM25) over the local document folder, optionally reranked by the model's negative log-likelihood; the best passage(s) are appended to the model's answer.",
    input: "The step's instruction is the query.",
  },
  {
    name: 'code generate',
    origin: 'art',
    description: 'Asks the model, in a prompt of its own, to write Python for the instruction.',
    input: 'The instruction, and the previous answer when it holds code or data.',
  },
  {
    name: 'generate python code',
    origin: 'art',
    description: 'Asks the model, in a prompt of its own, to write Python that stores its result in `ans`.',
    input: 'The instruction, and the previous answer when it holds code or data.',
  },
  {
    name: 'code edit',
    origin: 'art',
    description: "Asks the model, in a prompt of its own, to edit the previous answer's code as the instruction says.",
    input: "The instruction and the previous answer's code.",
  },
  {
    name: 'code execute',
    origin: 'art',
    description:
      'Runs the previous answer\'s Python in a sandboxed process, after the ART prefix (math, sympy, `solve_it(equations, variable)`), and returns the variable the instruction names (`get the value of "Fx"`), else `ans`, else the printed output.',
    input: "The previous answer's code, or the answer `#k` the instruction names (or code on the lines after the instruction).",
  },
  {
    name: 'execute',
    origin: 'art',
    description: 'Runs Python in a sandboxed process and returns its output or traceback.',
    input: 'Code in the instruction, else the previous answer.',
  },
  {
    name: 'string edit',
    origin: 'art',
    description: 'Asks the model, in a prompt of its own, for Python that edits a string, and runs it.',
    input: 'The instruction and the previous answer.',
  },
  {
    name: 'string index',
    origin: 'art',
    description: 'Asks the model, in a prompt of its own, for Python that indexes into a string, and runs it.',
    input: 'The instruction and the previous answer.',
  },
  {
    name: 'string permutation',
    origin: 'art',
    description: 'Asks the model, in a prompt of its own, for Python that lists permutations, and runs it.',
    input: 'The instruction and the previous answer.',
  },
  {
    name: 'lookup',
    origin: 'art',
    description: "Keeps the candidate words that are real English words according to the word list (Debian's /usr/share/dict/words by default).",
    input: 'The previous answer when it is a list of words (`["nwist", "twins"]`), else a list or quoted words in the instruction.',
  },
  {
    name: 'calculator',
    origin: 'multitool',
    description: 'Evaluates an arithmetic expression with mathjs (never eval), units included (`72 * cos(35 deg)`).',
    input: 'An arithmetic expression, or text ending in one (`16 - 3 - 4 =`).',
  },
  {
    name: 'Search',
    origin: 'react',
    description: 'ReACT action: the first passage of the best matching document in the local corpus.',
    input: 'An entity or phrase (`Milhouse`).',
  },
  {
    name: 'Lookup',
    origin: 'react',
    description: 'ReACT action: the next sentence containing the phrase in the last Search result, as `(Result i / n) sentence`.',
    input: 'A phrase (`named after`).',
  },
];

export class ToolCatalog {
  private readonly byName = new Map<string, ToolInfo>();
  /** Bumped on every change, so caches of derived facts (nearest tool names) know when to refresh. */
  version = 0;
  constructor(tools: Iterable<ToolInfo> = BUILTIN_TOOLS) {
    for (const t of tools) this.add(t);
  }
  add(t: ToolInfo): void {
    const key = normalizeName(t.name);
    if (!this.byName.has(key) || t.origin === 'user') this.byName.set(key, t);
    this.version++;
  }
  get(name: string): ToolInfo | undefined {
    return this.byName.get(normalizeName(name));
  }
  has(name: string): boolean {
    return this.byName.has(normalizeName(name));
  }
  all(): ToolInfo[] {
    return [...this.byName.values()];
  }
}
