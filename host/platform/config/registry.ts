import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { maskUrlCredentials, unmaskEcho } from '../../../core/config/url-credentials.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SECRET_MASK } from '../../../core/sdk/settings.js';
import { writeFileAtomic, type AtomicWriteOptions } from '../../../core/config/atomic-file.js';
import { envNameOf } from './sections.js';
import { configFilesOf, readEnvFile } from './config-files.js';
import type { ConfigModel } from './config-model.js';
import type { SectionValues, SettingsSection } from './settings-section.js';
import type { PlatformConfig } from './model/index.js';

/** Where a key's value comes from: `env`, the config file's base name, or `default`. */
export type ConfigSource = 'env' | 'default' | (string & {});

export interface ConfigView {
  config: Record<string, unknown>;
  source: Record<string, ConfigSource>;
}

export interface ConfigUpdateResult extends ConfigView {
  /** Posted keys that were stored but stay overridden by the environment. */
  envOverridden: string[];
  /** Posted keys the write stored in the file (or removed from it, for `null`). */
  written: string[];
}

export interface ConfigRegistryOptions {
  /** The keys: the platform's section and each surface's, merged (config-model.ts). */
  model: ConfigModel;
  /** Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default: env.ENV_FILE, else `.env` in the working directory. A missing file is fine. */
  envFile?: string;
  /** The JSON config file (absolute path). */
  configFile: string;
  /** The rename step of the atomic write (tests make it fail with a chosen errno). */
  rename?: AtomicWriteOptions['rename'];
  /** Told when a change listener throws; the other listeners still run. */
  onListenerError?: (err: unknown) => void;
}

/** Told the keys whose effective value changed: any key of the model, not only those a section types. */
export type ConfigChangeListener = (changedKeys: string[]) => void;

/**
 * Looks at a stored write and says what its values will not do as the writer expects (a selected
 * backend that lacks a feature, say). The write stands; the warnings go back with its answer.
 */
export type ConfigAdvisor = (writtenKeys: string[]) => Promise<string[]> | string[];

/**
 * Wraps every write of the config file (host/platform/config/cluster-config.ts: on PostgreSQL it
 * brings the file up to the cluster's copy first, holds the cluster's lock during the write and
 * publishes the result). Default: the write alone.
 */
export type ConfigWriteCoordinator = <T>(write: () => Promise<T>) => Promise<T>;

export interface ConfigIssue {
  key: string;
  message: string;
}

/** A write was refused; nothing was stored. `message` names every bad key. */
export class ConfigValidationError extends Error {
  constructor(readonly issues: ConfigIssue[]) {
    super(issues.map((i) => `${i.key}: ${i.message}`).join('; '));
    this.name = 'ConfigValidationError';
  }
}

/** The config file exists but cannot be read as a JSON object; writing it would lose its content. */
export class ConfigFileUnreadableError extends Error {
  constructor(readonly file: string, reason: string) {
    super(`config file ${path.basename(file)} cannot be read (${reason}); fix or remove it before saving configuration`);
    this.name = 'ConfigFileUnreadableError';
  }
}

interface LoadedState {
  values: Record<string, unknown>;
  source: Record<string, ConfigSource>;
  problems: string[];
}

/** The configuration's values by key, as a section's (or several sections') keys type them. */
export type ConfigValues = Record<string, unknown>;

/**
 * The merged configuration: environment (process env, then the env file) > JSON config file >
 * model defaults, with the source of every key. Invalid values never crash it: they are
 * reported by problems() and the next source is used.
 */
export class ConfigRegistry<out V extends ConfigValues = PlatformConfig> {
  readonly model: ConfigModel;
  readonly configFile: string;
  readonly envFile: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly rename: AtomicWriteOptions['rename'];
  private readonly onListenerError: (err: unknown) => void;
  private readonly listeners = new Set<ConfigChangeListener>();
  private readonly advisors = new Set<ConfigAdvisor>();
  private state: LoadedState;
  // Writes run one after the other so two updates cannot lose each other's keys.
  private writes: Promise<unknown> = Promise.resolve();
  private coordinator: ConfigWriteCoordinator = (write) => write();

  constructor(options: ConfigRegistryOptions) {
    this.model = options.model;
    this.env = options.env ?? process.env;
    this.envFile = path.resolve(options.envFile || this.env.ENV_FILE || '.env');
    this.configFile = path.resolve(options.configFile);
    this.rename = options.rename;
    this.onListenerError = options.onListenerError ?? (() => {});
    this.state = this.load();
  }

  /**
   * The registry of a process: ENV_FILE (default `.env`), CONFIG_FILE (default
   * `<DATA_DIR>/switchboard.config.json`), both resolved against `cwd`.
   */
  static fromEnvironment<V extends ConfigValues = PlatformConfig>(model: ConfigModel, env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): ConfigRegistry<V> {
    const { envFile, configFile } = configFilesOf(env, cwd);
    return new ConfigRegistry<V>({ model, env, envFile, configFile });
  }

  get<K extends keyof V & string>(key: K): V[K] {
    return this.state.values[key] as V[K];
  }

  all(): Readonly<V> {
    return Object.freeze({ ...this.state.values }) as Readonly<V>;
  }

  /**
   * This registry, typed for the keys of `section` too (a surface reads its own keys this way).
   * Throws when the registry's model was built without the section.
   */
  withSection<S extends SettingsSection>(section: S): ConfigRegistry<V & SectionValues<S>> {
    if (!this.model.includes(section)) throw new Error(`the configuration model has no section of ${section.owner}`);
    return this as unknown as ConfigRegistry<V & SectionValues<S>>;
  }

  /** Raw values (secrets in clear) with their sources; for use inside the process only. */
  effective(): ConfigView {
    return { config: { ...this.state.values }, source: { ...this.state.source } };
  }

  /** Every key; secrets that are set show `***`, credentials inside URLs too, unset keys `null`. Safe to send or log. */
  masked(): ConfigView {
    const config: Record<string, unknown> = {};
    for (const key of this.model.keys) {
      const value = this.state.values[key];
      config[key] = value === undefined ? null : this.model.secretKeys.has(key) ? SECRET_MASK : typeof value === 'string' ? maskUrlCredentials(value) : value;
    }
    return { config, source: { ...this.state.source } };
  }

  /** What was ignored while loading: bad env values, bad file values, an unreadable file. */
  problems(): string[] {
    return [...this.state.problems];
  }

  /** Called with the keys whose effective value changed, after update() or reload(). */
  onChange(listener: ConfigChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds a check whose warnings `advise` returns after a write (the config API's `warnings`). */
  addAdvisor(advisor: ConfigAdvisor): () => void {
    this.advisors.add(advisor);
    return () => this.advisors.delete(advisor);
  }

  /** The warnings of every advisor about the keys a write stored; an advisor that throws says nothing. */
  async advise(writtenKeys: string[]): Promise<string[]> {
    const answers = await Promise.all([...this.advisors].map(async (advisor) => (await advisor(writtenKeys)) ?? []).map((p) => p.catch(() => [] as string[])));
    return answers.flat();
  }

  /** Re-reads the env file and the config file (the process env is read live). */
  reload(): string[] {
    return this.replaceState(this.load());
  }

  /**
   * Stores keys in the config file. The whole candidate is validated first and nothing is
   * written when any key is bad. `***` for a secret keeps the stored secret; `null` removes a
   * key from the file. Keys set in the environment are stored but keep their env value.
   * Returns the masked view.
   */
  update(patch: Record<string, unknown>): Promise<ConfigUpdateResult> {
    const run = this.writes.then(() => this.coordinator(() => this.applyUpdate(patch)));
    this.writes = run.catch(() => {});
    return run;
  }

  /** Sets what wraps each write of the config file (the cluster's copy on PostgreSQL). */
  coordinateWrites(coordinator: ConfigWriteCoordinator): void {
    this.coordinator = coordinator;
  }

  /** The config file's text as stored now ('' when there is none). */
  async storedText(): Promise<string> {
    try {
      return await readFile(this.configFile, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw new ConfigFileUnreadableError(this.configFile, (err as NodeJS.ErrnoException).code ?? 'read error');
    }
  }

  /** Replaces the config file with `text` (the cluster's copy) and applies it; the keys whose value changed. */
  async replaceStored(text: string): Promise<string[]> {
    if ((await this.storedText()) !== text) await writeFileAtomic(this.configFile, text, { private: true, ...(this.rename ? { rename: this.rename } : {}) });
    return this.reload();
  }

  /**
   * What a write of `patch` would be refused for, each key named in the order sent (a bad value
   * already in the file too); none when update() would store it. Nothing is written.
   */
  async check(patch: Record<string, unknown>): Promise<ConfigIssue[]> {
    try {
      await this.candidate(patch);
      return [];
    } catch (err) {
      if (err instanceof ConfigValidationError) return err.issues;
      if (err instanceof ConfigFileUnreadableError) return [{ key: path.basename(this.configFile), message: err.message }];
      throw err;
    }
  }

  private async applyUpdate(patch: Record<string, unknown>): Promise<ConfigUpdateResult> {
    const { next, written, values } = await this.candidate(patch);
    if (!written.length) return { ...this.masked(), envOverridden: [], written: [] };

    // The file keeps its key order and any keys this version does not know; values are
    // stored typed (as the model parsed them), never as the posted strings.
    const output: Record<string, unknown> = {};
    for (const key of Object.keys(next)) {
      // An environment-only key found in the file stays as it was written (it is ignored on load).
      const value = this.model.isKey(key) && !this.model.envOnlyKeys.has(key) ? values[key] : next[key];
      if (value !== undefined) output[key] = value;
    }
    await writeFileAtomic(this.configFile, `${JSON.stringify(this.model.nest(output), null, 2)}\n`, {
      private: true,
      ...(this.rename ? { rename: this.rename } : {}),
    });

    this.replaceState(this.load());
    const envOverridden = written.filter((key) => this.state.source[key] === 'env');
    return { ...this.masked(), envOverridden, written };
  }

  /**
   * The file content `patch` makes of the stored file, validated whole against the root model
   * (every key, cross-key rules included); a refusal throws ConfigValidationError naming every bad key.
   */
  private async candidate(patch: Record<string, unknown>): Promise<{ next: Record<string, unknown>; written: string[]; values: Record<string, unknown> }> {
    if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
      throw new ConfigValidationError([{ key: 'body', message: 'must be an object of configuration keys' }]);
    }
    const { model } = this;
    patch = model.flatten(patch);
    const issues: ConfigIssue[] = [];
    for (const key of Object.keys(patch)) {
      if (!model.isKey(key)) issues.push({ key, message: 'unknown configuration key' });
      else if (model.envOnlyKeys.has(key)) issues.push({ key, message: 'can only be set in the environment (a path on the server, or a development switch)' });
    }

    const stored = await this.readStoredFile();
    const next: Record<string, unknown> = { ...stored };
    const written: string[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (!model.isKey(key)) continue;
      if (model.secretKeys.has(key) && value === SECRET_MASK) continue; // the mask means "unchanged"
      if (value === null) delete next[key];
      // A URL sent back with its credentials masked (as shown) keeps the stored credentials.
      else next[key] = unmaskEcho(value, this.state.values[key]);
      written.push(key);
    }

    const candidate = Object.fromEntries(Object.entries(next).filter(([key]) => model.isKey(key)));
    // Rules across keys read the environment-only keys as they are (a switch that allows another key's value).
    for (const key of model.envOnlyKeys) if (this.state.values[key] !== undefined) candidate[key] = this.state.values[key];
    const parsed = model.schema.safeParse(candidate);
    if (!parsed.success) {
      const fileName = path.basename(this.configFile);
      for (const issue of parsed.error.issues) {
        const key = String(issue.path[0] ?? 'config');
        const fromFile = !Object.hasOwn(patch, key) && Object.hasOwn(stored, key);
        issues.push({ key, message: fromFile ? `${issue.message} (stored in ${fileName})` : issue.message });
      }
    }
    if (issues.length || !parsed.success) {
      // In the order of the request, so the message reads like the body that was sent.
      const order = Object.keys(patch);
      const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
      throw new ConfigValidationError(issues.sort((a, b) => rank(a.key) - rank(b.key)));
    }
    return { next, written, values: parsed.data };
  }

  // The file as it is on disk now (it may have been edited since the last load).
  private async readStoredFile(): Promise<Record<string, unknown>> {
    let text: string;
    try {
      text = await readFile(this.configFile, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new ConfigFileUnreadableError(this.configFile, (err as NodeJS.ErrnoException).code ?? 'read error');
    }
    const parsed = parseJsonObject(text);
    if (typeof parsed === 'string') throw new ConfigFileUnreadableError(this.configFile, parsed);
    return this.model.flatten(parsed);
  }

  private load(): LoadedState {
    const problems: string[] = [];
    const fileName = path.basename(this.configFile);
    const fromEnvFile = readEnvFile(this.envFile, problems);
    const fromFile = this.readFileLayer(problems);

    const { model } = this;
    const defaults = model.defaults();
    const values: Record<string, unknown> = {};
    const source: Record<string, ConfigSource> = {};
    for (const key of model.keys) {
      // An empty env value counts as unset (compose files write `KEY=${KEY}`).
      // An environment-only key in the JSON file is ignored (the API writes that file).
      const fileValue = model.envOnlyKeys.has(key) ? undefined : (fromFile[key] ?? undefined);
      if (model.envOnlyKeys.has(key) && fromFile[key] !== undefined) problems.push(`${key}: can only be set in the environment (in ${fileName}; ignored)`);
      const layers: Array<[unknown, ConfigSource, string]> = [
        [this.env[envNameOf(key)] || undefined, 'env', 'the environment'],
        [fromEnvFile[envNameOf(key)] || undefined, 'env', path.basename(this.envFile)],
        [fileValue, fileName, fileName],
      ];
      let chosen = false;
      for (const [raw, origin, where] of layers) {
        if (raw === undefined) continue;
        const result = model.keySchema(key).safeParse(raw);
        if (!result.success) {
          problems.push(`${key}: ${result.error.issues[0]?.message ?? 'invalid value'} (in ${where}; ignored)`);
          continue;
        }
        values[key] = result.data;
        source[key] = origin;
        chosen = true;
        break;
      }
      if (!chosen) {
        values[key] = defaults[key];
        source[key] = 'default';
      }
    }
    return { values, source, problems };
  }

  private readFileLayer(problems: string[]): Record<string, unknown> {
    const fileName = path.basename(this.configFile);
    let text: string;
    try {
      text = readFileSync(this.configFile, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        problems.push(`${fileName}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'read error'}); its keys use defaults`);
      }
      return {};
    }
    const parsed = parseJsonObject(text);
    if (typeof parsed === 'string') {
      problems.push(`${fileName}: ${parsed}; its keys use defaults`);
      return {};
    }
    const flat = this.model.flatten(parsed);
    for (const key of Object.keys(flat)) {
      if (!this.model.isKey(key)) problems.push(`${key}: unknown configuration key in ${fileName} (ignored)`);
    }
    return flat;
  }

  private replaceState(next: LoadedState): string[] {
    const previous = this.state as LoadedState | undefined;
    this.state = next;
    if (!previous) return [];
    // Deep equality: an object value (REPOS) is parsed anew on each load and is the same value.
    const changed = this.model.keys.filter((key) => !isDeepStrictEqual(previous.values[key], next.values[key]));
    if (changed.length) {
      for (const listener of [...this.listeners]) {
        try {
          listener(changed);
        } catch (err) {
          this.onListenerError(err);
        }
      }
    }
    return changed;
  }
}

/** The object in `text`, or why there is none. */
function parseJsonObject(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {}; // a freshly touched file holds no keys yet
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  return value as Record<string, unknown>;
}
