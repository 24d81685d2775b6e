// The prompt a run sends, without running it: "ART: Show Prompt" and `art prompt`. A trace gives the prompt it recorded.
import { resolve } from 'node:path';
import { promptReportFromTrace, type PromptReport } from '../prompt/promptReport';
import { parseTrace, runTraceProblem } from '../trace/trace';
import { languageOf, prepareRun, readProgram } from './launch';
import { LaunchError } from './options';
import type { PreparedRun, RunConfig } from './session';

/** What a command tool or MCP server answers while a prompt is built (nothing is started for it). */
export const PROMPT_STARTS_NOTHING = "Building a prompt runs none of the tool file's tools (commands, HTTP tools, MCP servers)";

/** The prompt of a prepared run (what its first request sends), its demonstrations and why each was chosen. */
export function promptReportOf(run: PreparedRun, sample?: { index: number; of: number }): PromptReport {
  const r = run.runner;
  const generated = r.text.slice(r.protocol.header.length);
  return {
    kind: r.protocol.kind,
    title: run.language === 'trace' ? undefined : run.title,
    program: run.path,
    model: run.model.id,
    prompt: r.protocol.prompt,
    header: r.protocol.header,
    demonstrations: r.protocol.demonstrations,
    generated: generated || undefined,
    sample,
  };
}

/**
 * The prompt a run of `config` would send, without running it: the run is prepared (the task picked, the
 * demonstrations selected, as a run selects them) and disposed of. A trace (.jsonl) gives the prompt it recorded.
 */
export async function promptOfRun(config: RunConfig): Promise<PromptReport> {
  const program = resolve(config.cwd ?? process.cwd(), String(config.program ?? ''));
  if (config.program && languageOf(program) === 'trace') {
    const parsed = parseTrace(config.text ?? readProgram(program));
    const problem = runTraceProblem(program, parsed);
    if (problem) throw new LaunchError(problem);
    try {
      return promptReportFromTrace(parsed.records, program);
    } catch (e) {
      throw new LaunchError(`${program}: ${(e as Error).message}`);
    }
  }
  // Building a prompt starts nothing: the tool file's commands and MCP servers are named, never started.
  const run = await prepareRun({ ...config, trace: undefined, stopOnEntry: false, userToolsRefused: PROMPT_STARTS_NOTHING });
  try {
    return promptReportOf(run);
  } finally {
    await run.dispose();
  }
}
