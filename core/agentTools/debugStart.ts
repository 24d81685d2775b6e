// The agent tool debug_start: a run prepared as the tool run prepares it, except that it pauses after every tool
// call and when a tool fails; the answer is the session's id and its first pause, or the end when it makes no call.
// The session is the shell's: art mcp's own, or a debug session of the editor that the person sees.
import { mayCallEndpoint } from '../launch/apiKey';
import { parseRunOptions } from '../launch/options';
import type { RunConfig } from '../launch/session';
import { NOT_FOR_RUN_TOOL, runOptionShape } from './runOptions';
import { STOP_SHAPE, stopAnswer } from './sessionStop';
import { existingFile, fileOrActive, givenOrActive } from './shapes';
import { defineTool } from './tool';

export const debugStart = defineTool({
  name: 'debug_start',
  title: 'Start a stepping session',
  description:
    'Start a run that pauses after each tool call (and on a tool error), as the debugger does: returns a session id and the first pause (tool, input, output, step, the program so far), or the end when the run makes no call. Replays the recorded program unless an endpoint (baseURL and model, or art mcp\'s --base-url and --model; in the editor, its model settings) or mode "generate" is given. In the editor the session is a debug session the person sees; art mcp stops a session nobody drives after its --session-idle-s.',
  runsPrograms: true,
  userTools: true,
  input: {
    file: fileOrActive('The task library (.art), agent spec (.agent), MultiTool-CoT prompt or trace (.jsonl)'),
    ...runOptionShape(NOT_FOR_RUN_TOOL),
  },
  output: STOP_SHAPE,
  editor: {
    displayName: 'ART: Start Debugging',
    referenceName: 'artDebugStart',
    userDescription: 'Starts a debug session of a program that pauses after each tool call.',
    icon: '$(debug-alt)',
    invocation: i => `Starting a debug session of ${i.file ?? 'the program'}`,
    confirm: i => ({
      title: 'ART Studio: start a debug session?',
      message: `Runs ${i.file ?? 'the program of the active editor'} to its first tool call: its tools run code and a live run calls the model.`,
    }),
  },
  run: async (input, host) => {
    const stop = await host.sessions.start(async () => {
      const file = await existingFile(host, givenOrActive(host, input.file, 'file'), 'file');
      const { raw, notes } = await host.runOptions(input, file);
      const o = parseRunOptions(raw, host.label('file'));
      const { key, note } = await host.key(o, mayCallEndpoint(o));
      if (note) notes.push(note);
      const config: RunConfig = {
        ...o,
        apiKey: key,
        chatModel: await host.chatModel(o, `ART Studio runs ${file} with this model.`),
        telemetryEnv: host.telemetryEnv,
        trusted: host.trusted,
        pauseAfterTool: true,
        pauseOnToolError: true,
        userToolsRefused: host.userToolsRefused,
        log: line => notes.push(line),
      };
      return { config, key, notes };
    }, host.signal);
    return stopAnswer(stop);
  },
});
