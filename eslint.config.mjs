// ESLint (flat config): JavaScript's and typescript-eslint's recommended rules over the sources, scripts and tests.
// Formatting is Prettier's (npm run format); `npm run lint` runs both checks and is part of the test line.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'test/vscode/lm-provider/dist/**',
      'node_modules/**',
      'test/vscode/code-server/**',
      'test-results/**',
      '.bench/**',
      '.art-cache/**',
      'core/**/*.parser.js',
      'core/**/*.parser.d.ts',
      '**/*.vsix',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused names are an error, except those written `_name` on purpose (an interface's argument).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Namespaces declare custom LSP/DAP messages (as vscode-eslint does): a name and a shape, shared by both sides.
      '@typescript-eslint/no-namespace': 'off',
    },
  },
  {
    // core/ is plain TypeScript: no editor, no LSP or DAP library, nothing of the shells that translate it.
    files: ['core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'core/ has no vscode import: the client translates.' },
            { name: '@vscode/debugadapter', message: 'core/ knows nothing of DAP: client/debugAdapter/ translates.' },
          ],
          patterns: [
            { group: ['vscode-languageserver*', 'vscode-languageclient*'], message: 'core/ knows nothing of LSP: server/ translates.' },
            { regex: '^(\\.\\./)+(server|client)(/|$)', message: 'core/ does not import the server or the client.' },
          ],
        },
      ],
    },
  },
  {
    // The debug adapter bundle runs outside VS Code too (nvim-dap, Emacs): no vscode import.
    files: ['client/debugAdapter/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'client/debugAdapter/ is the standalone DAP adapter: no vscode import.' }] },
      ],
    },
  },
  {
    // Tests reach into payloads of the protocols with `any` where the shape is asserted right after.
    files: ['test/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // Browser-side code of the end-to-end suite runs in the page.
    files: ['test/vscode/e2e/**', 'scripts/**'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
