// The commands that run programs (`art run`, `art test`, `art eval`, `art diff`, `art prompt`, `art mcp`): they bring the runner, the model client and the tools, so
// they form a bundle of their own (dist/cli-run.js) that core/cli/main.ts loads only for them.
export { runCommand } from './run';
export { testCommand } from './test';
export { evalCommand } from './eval';
export { improveCommand } from './improve';
export { diffCommand } from './diff';
export { promptCommand } from './prompt';
export { mcpCommand } from './mcp';
export { endTelemetry } from '../launch/session';
