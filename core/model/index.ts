// Model clients: any OpenAI-compatible endpoint, and a replay of recorded model text (no endpoint).
export type { CompletionChunk, CompletionRequest, CompletionResult, ModelClient, Usage } from './types';
export { OpenAIModel, ModelError, publicURL, CHAT_CONTINUE_SYSTEM_PROMPT, type OpenAIModelOptions, type RetryInfo } from './openai';
export { ReplayModel, artProgramParts, type ReplayOptions } from './replay';
export { ContinuationScript, roughTokens, type ScriptPart, type ScriptPosition } from './script';
export { DEFAULT_RETRY, type RetryPolicy } from './retry';
export { CachedModel, type CachedCompletion } from './cache';
