// The agent tool debug_stop: a stepping session ended wherever it stands, at once also while another call drives it.
import { defineSessionTool } from './sessionTool';

export const debugStop = defineSessionTool({
  name: 'debug_stop',
  title: 'Stop a stepping session',
  description:
    'End a session wherever it stands, at once also while another request drives it (the step in flight is cancelled; its tools and sandbox end too); returns the program as it stood. A departed session is forgotten.',
  editor: {
    displayName: 'ART: Stop Debugging',
    referenceName: 'artDebugStop',
    userDescription: 'Ends the ART debug session.',
    icon: '$(debug-stop)',
    invocation: () => 'Stopping the ART debug session',
  },
  act: (input, host) => host.sessions.stop(input.session),
});
