// The names of the editor's language model tools (client/lm/tools.ts), each declared in package.json's
// `contributes.languageModelTools` (test/client/manifest.test.ts checks both lists are the same).
/** The tools' names, as package.json's `contributes.languageModelTools` declares them. */
export const LM_TOOLS = {
  check: 'art_check',
  showPrompt: 'art_show_prompt',
  debugState: 'art_debug_state',
  debugSetOutput: 'art_debug_set_output',
  debugContinue: 'art_debug_continue',
  debugStepBack: 'art_debug_step_back',
  runTests: 'art_run_tests',
  evaluate: 'art_evaluate',
  improve: 'art_improve',
} as const;
