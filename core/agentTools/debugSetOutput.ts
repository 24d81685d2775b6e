// The agent tool debug_set_output: the paused tool call's output replaced, as setting it in the debugger's Variables
// view does; the session stays paused (debug_continue goes on with it).
import { z } from 'zod';
import { defineSessionTool } from './sessionTool';

export const debugSetOutput = defineSessionTool({
  name: 'debug_set_output',
  title: "Override the paused tool's output",
  description:
    'Replaces the output of the tool call a stepping session is paused at with "output", as setting the output in the debugger\'s Variables view does: the model sees this text instead of the tool\'s when the run continues (a replay departs from its recording there). Does not continue the run.',
  input: { output: z.string().describe("The text the model sees as the paused tool's output.") },
  editor: {
    displayName: 'ART: Override Tool Output',
    referenceName: 'artDebugSetOutput',
    userDescription: "Replaces the paused tool call's output in the ART debug session.",
    icon: '$(edit)',
    invocation: i => `Setting the paused tool's output to ${JSON.stringify(i.output ?? '')}`,
  },
  act: (input, host) => host.sessions.setOutput(input.session, input.output),
});
