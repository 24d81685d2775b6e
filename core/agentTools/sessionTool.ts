// A tool that drives the shell's stepping sessions (debug_state, debug_set_output, debug_continue, debug_step_back,
// debug_stop): its own inputs beside `session`, where the session then stands as its answer (STOP_SHAPE).
import type { z } from 'zod';
import { STOP_SHAPE, sessionArg, stopAnswer, type SessionView } from './sessionStop';
import { defineTool, type AgentTool, type ToolHost } from './tool';

type SessionShape<S extends z.ZodRawShape> = typeof sessionArg & S;

export function defineSessionTool<S extends z.ZodRawShape = Record<never, never>>(
  spec: Omit<AgentTool<SessionShape<S>>, 'input' | 'output' | 'run'> & {
    input?: S;
    /** What it does to the session, answering where the session then stands. */
    act(input: z.infer<z.ZodObject<SessionShape<S>>>, host: ToolHost): Promise<SessionView>;
  },
): AgentTool<SessionShape<S>> {
  const { act, input, ...rest } = spec;
  return defineTool({
    ...rest,
    input: { ...sessionArg, ...(input ?? ({} as S)) },
    output: STOP_SHAPE,
    run: async (i, host) => stopAnswer(await act(i, host)),
  });
}
