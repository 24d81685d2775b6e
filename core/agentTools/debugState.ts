// The agent tool debug_state: where a stepping session stands (its pause: the tool, its input, its output or the
// override set in its place; or running; or its end), without driving it.
import { defineSessionTool } from './sessionTool';

export const debugState = defineSessionTool({
  name: 'debug_state',
  title: 'Where a stepping session stands',
  description:
    'Reads where a stepping session stands: paused at a tool call (the tool, its input, its output or the override set in its place, the step, why it paused), running, or ended, and the program so far. In the editor the session is the debug session the person is looking at: this is what the debugger shows them.',
  editor: {
    displayName: 'ART: Debug Session State',
    referenceName: 'artDebugState',
    userDescription: 'Where the ART debug session stands: its pause (tool, input, output) and the program so far.',
    icon: '$(debug)',
    invocation: () => 'Reading where the ART debug session stands',
  },
  act: (input, host) => host.sessions.state(input.session),
});
