// Settings under `art.`: read per document through workspace/configuration when the client supports it, else
// from initializationOptions and didChangeConfiguration (Neovim, Helix and Emacs users set them there).
// Defaults and bounds come from the settings' declaration (core/settings/settings.ts), the tool file's default from
// the tool file's module.
import type { Connection } from 'vscode-languageserver';
import type { ServerSettings } from './protocol';
import type { Logger } from './guard';
import { settingDefault, settingValue } from '../core/settings/settings';
import { TOOLS_FILE_NAME } from '../core/tools/toolsFile';

export const DEFAULT_SETTINGS: ServerSettings = {
  diagnostics: { debounceMs: settingDefault('diagnostics.debounceMs'), enable: settingDefault('diagnostics.enable') },
  tools: { file: TOOLS_FILE_NAME },
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Defaults overridden by the well-typed values of `raw` (an `art` section); wrong types are ignored, numbers clamped to their bounds. */
export function readSettings(raw: unknown, base: ServerSettings = DEFAULT_SETTINGS): ServerSettings {
  const s: ServerSettings = { diagnostics: { ...base.diagnostics }, tools: { ...base.tools } };
  if (!isObject(raw)) return s;
  // Nested (`{"diagnostics": {"debounceMs": 0}}`) and flat dotted keys (`{"diagnostics.debounceMs": 0}`), as some clients send them.
  const d = isObject(raw.diagnostics) ? raw.diagnostics : {};
  for (const v of [d.debounceMs, raw['diagnostics.debounceMs']])
    s.diagnostics.debounceMs = settingValue('diagnostics.debounceMs', v) ?? s.diagnostics.debounceMs;
  for (const v of [d.enable, raw['diagnostics.enable']]) s.diagnostics.enable = settingValue('diagnostics.enable', v) ?? s.diagnostics.enable;
  const t = raw.tools;
  if (isObject(t) && typeof t.file === 'string' && t.file.trim()) s.tools.file = t.file.trim();
  if (typeof raw['tools.file'] === 'string' && (raw['tools.file'] as string).trim()) s.tools.file = (raw['tools.file'] as string).trim();
  return s;
}

/** `{ art: {...} }` or `{ settings: { art: {...} } }` or the section itself. */
export function artSection(value: unknown): unknown {
  if (!isObject(value)) return undefined;
  if (isObject(value.settings)) return artSection(value.settings);
  if (isObject(value.art)) return value.art;
  if ('diagnostics' in value || 'tools' in value) return value;
  return undefined;
}

export class SettingsStore {
  /** Settings pushed by the client (initializationOptions, didChangeConfiguration). */
  private pushed: ServerSettings;
  private readonly perDocument = new Map<string, Promise<ServerSettings>>();
  private readonly resolved = new Map<string, ServerSettings>();

  constructor(
    private readonly connection: Connection,
    private readonly pullFromClient: boolean,
    initializationOptions: unknown,
    private readonly log: Logger,
  ) {
    this.pushed = readSettings(artSection(initializationOptions));
  }

  /** Settings that apply to the workspace as a whole (the tool file). */
  get global(): ServerSettings {
    return this.pushed;
  }

  /** Settings for a document; fetched once per document and cached until the configuration changes. */
  for(uri: string): Promise<ServerSettings> {
    let p = this.perDocument.get(uri);
    if (!p) {
      p = this.fetch(uri);
      this.perDocument.set(uri, p);
      p.then(s => this.perDocument.get(uri) === p && this.resolved.set(uri, s));
    }
    return p;
  }

  /** The cached settings of a document without waiting, when there are any. */
  peek(uri: string): ServerSettings | undefined {
    return this.resolved.get(uri);
  }

  /** didChangeConfiguration: take pushed settings (if any) and re-read every document's. */
  changed(pushed: unknown): void {
    const section = artSection(pushed);
    if (section !== undefined) this.pushed = readSettings(section);
    this.perDocument.clear();
    this.resolved.clear();
  }

  forget(uri: string): void {
    this.perDocument.delete(uri);
    this.resolved.delete(uri);
  }

  /** The workspace-level `art` section from the client (for the tool file), or the pushed settings. */
  async workspace(): Promise<ServerSettings> {
    if (!this.pullFromClient) return this.pushed;
    try {
      const raw = await this.connection.workspace.getConfiguration({ section: 'art' });
      return readSettings(raw, this.pushed);
    } catch (e) {
      this.log.error(`could not read settings: ${String(e)}`);
      return this.pushed;
    }
  }

  private async fetch(uri: string): Promise<ServerSettings> {
    if (!this.pullFromClient) return this.pushed;
    try {
      const raw = await this.connection.workspace.getConfiguration({ scopeUri: uri, section: 'art' });
      return readSettings(raw, this.pushed);
    } catch (e) {
      this.log.error(`could not read settings for ${uri}: ${String(e)}`);
      return this.pushed;
    }
  }
}
