// The `art.*` settings that are not run options, declared once: key (under `art.`), type with its default and
// bounds (a zod schema), scope and description. scripts/gen-manifest.mjs writes them into package.json's
// `contributes.configuration` beside the run options' settings (core/launch/options.ts), and the client
// (client/settings.ts) and the language server (server/settings.ts) take their defaults and bounds from here through
// settingDefault and settingValue, so a value is clamped the same way wherever it is read.
import { z } from 'zod';
import { withoutUndefined } from '../common/text';

/** Where VS Code lets a setting be set (package.json's `scope`). */
export type SettingScope = 'window' | 'resource' | 'machine' | 'machine-overridable';

export interface SettingSpec<S extends z.ZodType = z.ZodType> {
  /** The value's type, its default (`.default(...)`) and its bounds (`.min`, `.max`). */
  schema: S;
  scope: SettingScope;
  description: string;
}

/** The run history folder, relative to the workspace folder (VS Code's default, and `art run --search`'s and `art eval`'s). */
export const DEFAULT_RUNS_FOLDER = '.art/runs';

/** The levels of `art.server.trace`. */
export const SERVER_TRACE_LEVELS = ['off', 'messages', 'verbose'] as const;

const setting = <S extends z.ZodType>(schema: S, spec: Omit<SettingSpec<S>, 'schema'>): SettingSpec<S> => ({ schema, ...spec });

export const SETTINGS = {
  'server.trace': setting(z.enum(SERVER_TRACE_LEVELS).default('off'), {
    scope: 'window',
    description: 'Trace the messages between VS Code and the ART language server in the "ART Studio" output channel.',
  }),
  'diagnostics.enable': setting(z.boolean().default(true), {
    scope: 'resource',
    description: 'Check .art and .agent files and show problems.',
  }),
  'diagnostics.debounceMs': setting(z.number().min(0).max(5000).default(150), {
    scope: 'resource',
    description: 'Milliseconds to wait after the last keystroke before a file is checked again (0 checks at once).',
  }),
  'debug.streamToEditor': setting(z.boolean().default(true), {
    scope: 'window',
    description:
      'While a program runs, show it growing beside the source in a read-only document (not a file: never dirty, not checked). "ART: Save as Demonstration" adds the finished program to a task library, where it can be corrected.',
  }),
  'runs.folder': setting(z.string().default(DEFAULT_RUNS_FOLDER), {
    scope: 'resource',
    description:
      'Folder (relative to the workspace folder) where every run keeps its trace and a summary: the Runs view lists them, "ART: Compare Runs" compares two. A launch configuration\'s "trace" writes elsewhere instead.',
  }),
  'runs.gitignore': setting(z.boolean().default(true), {
    scope: 'resource',
    description: 'Write a .gitignore in the runs folder that keeps the run history out of git (turn off to commit runs).',
  }),
  'evaluation.concurrency': setting(z.number().int().min(1).max(64).default(4), {
    scope: 'resource',
    description:
      '"ART: Evaluate Task": examples run at once, and the bound on requests in flight to the endpoint (halved while it answers 429), as art eval --concurrency.',
  }),
};

export type SettingKey = keyof typeof SETTINGS;
export type SettingValue<K extends SettingKey> = z.output<(typeof SETTINGS)[K]['schema']>;

type JsonSchema = Record<string, unknown> & { type?: string; enum?: unknown[]; minimum?: number; maximum?: number; default?: unknown };

/** The JSON schema of a setting's value (its type, default and bounds). */
export function settingSchema(key: SettingKey): JsonSchema {
  const s = z.toJSONSchema(SETTINGS[key].schema, { io: 'input' }) as JsonSchema;
  delete s.$schema;
  return s;
}

/** The setting's default. */
export function settingDefault<K extends SettingKey>(key: K): SettingValue<K> {
  return SETTINGS[key].schema.parse(undefined) as SettingValue<K>;
}

const bounds = new Map<SettingKey, { minimum?: number; maximum?: number }>();

/** The bounds of a number setting (none for the others). */
export function settingBounds(key: SettingKey): { minimum?: number; maximum?: number } {
  let b = bounds.get(key);
  if (!b) {
    const { minimum, maximum } = settingSchema(key);
    bounds.set(key, (b = withoutUndefined({ minimum, maximum })));
  }
  return b;
}

/**
 * A value of the setting as a client sent it: a finite number is clamped to the setting's bounds; a value of the
 * wrong type (or not one of an enum's) is undefined, for the caller to keep what it had.
 */
export function settingValue<K extends SettingKey>(key: K, raw: unknown): SettingValue<K> | undefined {
  if (raw === undefined) return undefined;
  let v = raw;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) return undefined;
    const { minimum = -Infinity, maximum = Infinity } = settingBounds(key);
    v = Math.max(minimum, Math.min(maximum, v));
  }
  const r = SETTINGS[key].schema.safeParse(v);
  return r.success ? (r.data as SettingValue<K>) : undefined;
}

/** package.json's entries of these settings (`art.<key>`). */
export function editorSettings(): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) {
    const { type, enum: en, default: def, ...rest } = settingSchema(key);
    const { scope, description } = SETTINGS[key];
    out[`art.${key}`] = withoutUndefined({ type, enum: en, default: def, ...rest, scope, description });
  }
  return out;
}
