// What the benchmarks (bench/) take from the test kit, by one name meant for them: the scripted OpenAI-compatible
// server, the OTLP receiver, the arithmetic model's library and scripts, the language server client over stdio, and
// the recording wrapper of the fake models' kit (a run's requests counted).
// A bench imports from here, never from a test file, so a change to what a bench relies on shows in this list.
export { ScriptedServer } from './scriptedServer';
export { OtlpReceiver } from './otlpReceiver';
export { freePort, NO_OTEL } from './telemetry';
export { ARITHMETIC_LIBRARY, arithmeticExamples, arithmeticScripts } from './arithmeticModel';
export { LspClient, ROOT, fileUri } from '../server/lspClient';
export { recordingModel } from './fakeModels';
