// Counts in words, written the same way everywhere: `1 request`, `3 requests`, `120 prompt + 40 completion tokens`.

/** `n word`, with an s when n is not 1 (`plural` for a word that takes another form). */
export function plural(n: number, word: string, pluralWord = `${word}s`): string {
  return `${n} ${n === 1 ? word : pluralWord}`;
}

/** The tokens a run or a request used: `120 prompt + 40 completion tokens`. */
export function tokenUsage(u: { promptTokens: number; completionTokens: number }): string {
  // A replay, or a model that reports no usage (VS Code's Language Model API; a stream cut at a tool call before the
  // endpoint's usage event): "0 prompt + 0 completion" would claim a count nobody made.
  if (u.promptTokens === 0 && u.completionTokens === 0) return 'no tokens reported';
  return `${u.promptTokens} prompt + ${u.completionTokens} completion tokens`;
}
