import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { writeFileAtomic } from '../../../../core/config/atomic-file.js';
import { maskSecretsDeep } from '../../../platform/logging/secret-detector.js';

/** One step of a traced run: a retrieval, a metric summary, an answer. */
export interface TraceEvent {
  ts: string;
  kind: string;
  data: unknown;
}

/** The JSON document of one trace file. */
export interface TraceDocument {
  repo: string;
  id: string;
  question: string;
  started_at: string;
  finished_at: string;
  events: TraceEvent[];
}

export interface TraceFileEntry {
  /** Relative to DATA_DIR: `out/<repo>/traces/<name>`. */
  path: string;
  name: string;
  mtime: string;
}

export type LatestTrace = { ok: true; trace: TraceDocument; name: string } | { ok: false; code: 'trace_not_found'; detail: string };

export interface TraceStoreOptions {
  dataDir: string;
  /** TRACE_RETENTION, read at each write so a reload applies. */
  retention: () => number;
  /** Configured secret values in clear; they are masked wherever they would appear in a trace. */
  secretValues?: () => string[];
  now?: () => Date;
}

const TRACE_NAME = /^\d{8}T\d{6}Z_[0-9a-f]{8}\.json$/;
const PLAIN_REPO = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
// A trace larger than this is not served back (it would not be "small" to read either).
const MAX_TRACE_BYTES = 8 * 1024 * 1024;

/**
 * Trace files under DATA_DIR/out/<repo>/traces/, shared by search, evaluation and (later)
 * answers. Names and paths are derived here only, never from a request.
 */
export class TraceStore {
  constructor(private readonly options: TraceStoreOptions) {}

  /** Starts a trace; nothing is written until `finish()`. */
  start(repo: string, question: string): TraceRecorder {
    assertPlainRepo(repo);
    return new TraceRecorder(this, repo, question, this.now());
  }

  dirOf(repo: string): string {
    assertPlainRepo(repo);
    return path.join(this.options.dataDir, 'out', repo, 'traces');
  }

  /** Trace files of a repository, newest first. */
  async list(repo: string): Promise<TraceFileEntry[]> {
    const dir = this.dirOf(repo);
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return [];
      throw err;
    }
    const entries: Array<TraceFileEntry & { ms: number }> = [];
    for (const name of names) {
      if (!TRACE_NAME.test(name)) continue;
      // lstat: a symlink planted in the folder is never followed out of it.
      const stat = await fs.lstat(path.join(dir, name)).catch(() => undefined);
      if (!stat?.isFile()) continue;
      entries.push({ path: path.posix.join('out', repo, 'traces', name), name, mtime: stat.mtime.toISOString(), ms: stat.mtimeMs });
    }
    // Newest write first; the name (start time, then random id) breaks ties within a clock tick.
    entries.sort((a, b) => b.ms - a.ms || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    return entries.map(({ ms: _ms, ...entry }) => entry);
  }

  /** The newest readable trace, or why there is none. */
  async latest(repo: string): Promise<LatestTrace> {
    const dir = this.dirOf(repo);
    for (const entry of await this.list(repo)) {
      // unreadable or half-copied by hand: try the next older one
      const trace = await readTrace(dir, entry.name);
      if (trace) return { ok: true, trace, name: entry.name };
    }
    return { ok: false, code: 'trace_not_found', detail: `no readable trace for repository "${repo}"` };
  }

  /** One trace by its file name (as `list` gives it), or null when there is no readable one. */
  async read(repo: string, name: string): Promise<TraceDocument | null> {
    if (!TRACE_NAME.test(name)) return null;
    return readTrace(this.dirOf(repo), name);
  }

  /**
   * Writes a finished trace (mode 0600, atomically) and prunes beyond TRACE_RETENTION.
   * TRACE_RETENTION=0 turns tracing off: nothing is written and the result is null.
   */
  async write(doc: TraceDocument): Promise<string | null> {
    if (this.options.retention() <= 0) return null;
    const dir = this.dirOf(doc.repo);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const name = `${compactUtc(new Date(doc.started_at))}_${doc.id}.json`;
    const secrets = this.options.secretValues?.() ?? [];
    const safe = maskSecretsDeep(doc, secrets);
    await writeFileAtomic(path.join(dir, name), JSON.stringify(safe, null, 2) + '\n', { mode: 0o600 });
    await this.prune(doc.repo);
    return path.posix.join('out', doc.repo, 'traces', name);
  }

  private async prune(repo: string): Promise<void> {
    const keep = this.options.retention();
    const entries = await this.list(repo);
    for (const entry of entries.slice(keep)) await fs.rm(path.join(this.dirOf(repo), entry.name), { force: true });
  }

  now(): Date {
    return this.options.now?.() ?? new Date();
  }
}

/** Collects the events of one run; `finish()` writes the file. */
export class TraceRecorder {
  readonly id = randomBytes(4).toString('hex');
  readonly events: TraceEvent[] = [];

  constructor(
    private readonly store: TraceStore,
    readonly repo: string,
    readonly question: string,
    readonly startedAt: Date,
  ) {}

  event(kind: string, data: unknown): void {
    this.events.push({ ts: this.store.now().toISOString(), kind, data });
  }

  /** Writes the trace; resolves to its path relative to DATA_DIR (null when tracing is off). */
  finish(): Promise<string | null> {
    return this.store.write({
      repo: this.repo,
      id: this.id,
      question: this.question,
      started_at: this.startedAt.toISOString(),
      finished_at: this.store.now().toISOString(),
      events: this.events,
    });
  }
}

/** `yyyymmddTHHMMSSZ` in UTC. */
export function compactUtc(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
}

function assertPlainRepo(repo: string): void {
  if (!PLAIN_REPO.test(repo) || repo === '.' || repo === '..') throw new Error(`not a plain repository name: ${JSON.stringify(repo)}`);
}

/** A trace file of the folder parsed, or null: a symlink, an oversized or unparsable file is no trace. */
async function readTrace(dir: string, name: string): Promise<TraceDocument | null> {
  try {
    const file = path.join(dir, name);
    const stat = await fs.lstat(file);
    if (!stat.isFile() || stat.size > MAX_TRACE_BYTES) return null;
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as TraceDocument;
    return parsed && typeof parsed === 'object' && Array.isArray(parsed.events) ? parsed : null;
  } catch {
    return null;
  }
}
