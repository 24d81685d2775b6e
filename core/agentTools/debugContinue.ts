// The agent tool debug_continue: a paused stepping session resumed to its next pause or its end, the paused tool's
// output first replaced when "output" is given.
import { z } from 'zod';
import { defineSessionTool } from './sessionTool';

export const debugContinue = defineSessionTool({
  name: 'debug_continue',
  title: 'Continue a stepping session',
  description:
    'Resume a paused session until its next pause or its end (status, answer, and why a replay departed). "output" first replaces the paused tool\'s output, as setting its value in the debugger does; a replay departs from its recording there.',
  runsPrograms: true,
  input: { output: z.string().optional().describe("The output the model sees instead of the paused tool's.") },
  editor: {
    displayName: 'ART: Continue Debugging',
    referenceName: 'artDebugContinue',
    userDescription: 'Continues the ART debug session to its next pause or its end.',
    icon: '$(debug-continue)',
    invocation: () => 'Continuing the ART debug session',
    confirm: i => ({
      title: 'ART Studio: continue the debug session?',
      message:
        (i.output !== undefined ? `The paused tool's output becomes ${JSON.stringify(i.output)}. ` : '') +
        'The run goes on to its next pause or its end: its tools run code and a live run calls the model.',
    }),
  },
  act: (input, host) => host.sessions.continue(input.session, input.output, host.signal),
});
