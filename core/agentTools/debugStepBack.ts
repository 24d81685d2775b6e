// The agent tool debug_step_back: a stepping session back at its previous pause (or the start of its run), its state
// restored; nothing before it is generated again.
import { defineSessionTool } from './sessionTool';

export const debugStepBack = defineSessionTool({
  name: 'debug_step_back',
  title: 'Step back in a stepping session',
  description:
    'Go back to the previous pause of a session: its state is restored and nothing before it is generated again. A replay that departed from its recording goes back to the pause it departed from (replayed again, its tools run again).',
  runsPrograms: true,
  editor: {
    displayName: 'ART: Step Back',
    referenceName: 'artDebugStepBack',
    userDescription: 'Goes back to the previous pause of the ART debug session.',
    icon: '$(debug-step-back)',
    invocation: () => 'Stepping the ART debug session back to its previous pause',
  },
  act: (input, host) => host.sessions.stepBack(input.session, host.signal),
});
