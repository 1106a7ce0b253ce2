import { readFileSync, statSync, type Stats } from 'node:fs';

export interface WriteSettlerOptions {
  /** A noticed file holds still: complete content, content that stopped changing, or gone. */
  onSettled: (file: string) => void;
  /** Whether `text` can only be a whole file (a JSON document that parses). */
  isComplete: (text: string) => boolean;
  /** How long content that is not complete (or a file that is gone) must hold still. */
  stableMs?: number;
  /** How long complete content must hold still when the file is the one it was (same inode). */
  completeMs?: number;
  /** How often a file that is not settled yet is looked at again. */
  pollMs?: number;
}

interface Pending {
  /** What the last look saw (inode, size, times), or 'gone'. */
  signature: string;
  /** performance.now() of the look that saw the signature change. */
  changedAt: number;
  /** The delays the looks since then were scheduled with. */
  scheduledStill: number;
  complete: boolean;
  /** A new file at the path (renamed into place), not the one that last held still there. */
  replaced: boolean;
  /** The next look, and the delay it was scheduled with. */
  timer?: NodeJS.Timeout;
  delay: number;
}

// Files larger than this are judged by holding still alone: no manifest or config store is this big.
const MAX_PARSED_BYTES = 4 * 1024 * 1024;

/**
 * Decides when a file that changed may be read: once it holds still. Content that can only be
 * whole (a JSON document that parses) settles at once when it is a new file at the path (another
 * inode than the one that last held still there: renamed into place, so nobody writes it any
 * more); in the file that was there (rewritten in place) it must hold still `completeMs`, for a
 * writer still at work after it first parses. Anything else (a file still being written, a
 * malformed one, a removal) must hold still `stableMs`.
 *
 * Holding still is measured twice: by the clock, and by the delays the looks were scheduled
 * with. After this process stalls, timers that fell due run in the order they fell due, so a
 * writer in this process pausing less than `stableMs` writes again before the look that
 * would end its wait: one late look is not taken for a writer that stopped.
 */
export class WriteSettler {
  private readonly pending = new Map<string, Pending>();
  /** The signature each file had when it last settled. */
  private readonly settled = new Map<string, string>();
  /** Files whose last settling was of whole content renamed into place (settled at once). */
  private readonly placedWhole = new Set<string>();
  private readonly stableMs: number;
  private readonly completeMs: number;
  private readonly pollMs: number;
  private closed = false;

  constructor(private readonly options: WriteSettlerOptions) {
    this.stableMs = options.stableMs ?? 120;
    this.completeMs = options.completeMs ?? 15;
    this.pollMs = options.pollMs ?? 30;
  }

  /**
   * Something happened to `file`: look at it now, and until it settles. A file already being
   * looked at keeps its schedule (its next look is at most `pollMs` away), so a stream of events
   * cannot hold off its settling.
   */
  notice(file: string): void {
    if (this.closed || this.pending.has(file)) return;
    const entry: Pending = { signature: '', changedAt: 0, scheduledStill: 0, complete: false, replaced: false, delay: 0 };
    this.pending.set(file, entry);
    this.schedule(file, entry, 0);
  }

  /**
   * True while `file` changed and has not settled yet. A file noticed but not yet looked at is
   * looked at now (its first look is due at once anyway): a scan running before that look's timer
   * would otherwise skip a file that settles at its first look.
   */
  isSettling(file: string): boolean {
    const entry = this.pending.get(file);
    if (!entry) return false;
    if (entry.signature === '' && entry.timer) {
      clearTimeout(entry.timer);
      this.look(file, entry);
    }
    return this.pending.has(file);
  }

  /**
   * True when `file` is, right now, what it was when it last settled. Otherwise (a change whose
   * event is still on its way) it is noticed, so it settles and is reported.
   */
  heldStill(file: string): boolean {
    if (this.pending.has(file)) return false;
    if (this.settled.get(file) === signatureOf(statQuietly(file))) return true;
    this.notice(file);
    return false;
  }

  /**
   * Takes the files as they are now for what last held still (the files a watcher starts on), so
   * their first change can tell a file renamed into place from one rewritten in place.
   */
  remember(files: Iterable<string>): void {
    for (const file of files) if (!this.settled.has(file)) this.settled.set(file, signatureOf(statQuietly(file)));
  }

  close(): void {
    this.closed = true;
    for (const entry of this.pending.values()) if (entry.timer) clearTimeout(entry.timer);
    this.pending.clear();
  }

  private schedule(file: string, entry: Pending, ms: number): void {
    entry.delay = ms;
    entry.timer = setTimeout(() => this.look(file, entry), ms);
  }

  private look(file: string, entry: Pending): void {
    entry.timer = undefined;
    if (this.closed || this.pending.get(file) !== entry) return;
    const now = performance.now();
    const stats = statQuietly(file);
    const signature = signatureOf(stats);
    if (signature !== entry.signature) {
      // A late event of a rename that already settled (the watcher and fs.watch may both report
      // one, milliseconds apart): the file is still exactly what settled, whole and renamed into
      // place, which nobody writes in place. It settles again at once; holding it still would
      // hide it for that long from the reload its first settling asked for (a scan skips a file
      // that is settling, and is asked again when it settles).
      if (entry.signature === '' && this.placedWhole.has(file) && this.settled.get(file) === signature) {
        this.pending.delete(file);
        this.options.onSettled(file);
        return;
      }
      entry.signature = signature;
      entry.changedAt = now;
      entry.scheduledStill = 0;
      entry.complete = stats !== undefined && (!stats.isFile() || this.readsComplete(file, stats));
      entry.replaced = stats !== undefined && this.isNewFile(file, stats);
    } else {
      entry.scheduledStill += entry.delay;
    }
    const needed = entry.complete ? (entry.replaced ? 0 : this.completeMs) : this.stableMs;
    const still = Math.min(now - entry.changedAt, entry.scheduledStill);
    if (still >= needed) {
      this.pending.delete(file);
      this.settled.set(file, signature);
      if (entry.complete && entry.replaced && stats?.isFile()) this.placedWhole.add(file);
      else this.placedWhole.delete(file);
      this.options.onSettled(file);
      return;
    }
    this.schedule(file, entry, Math.max(1, Math.min(needed - still, this.pollMs)));
  }

  /** Another inode than the one that last held still at `file` (or the path was empty then); unknown is not new. */
  private isNewFile(file: string, stats: Stats): boolean {
    const before = this.settled.get(file);
    if (before === undefined) return false;
    return before === 'gone' || inodeOf(before) !== String(stats.ino);
  }

  private readsComplete(file: string, stats: Stats): boolean {
    if (stats.size === 0 || stats.size > MAX_PARSED_BYTES) return false;
    try {
      return this.options.isComplete(readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
  }
}

function statQuietly(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}

function signatureOf(stats: Stats | undefined): string {
  return stats ? `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}` : 'gone';
}

const inodeOf = (signature: string) => signature.slice(0, signature.indexOf(':'));

/**
 * A JSON object or array that parses is whole: no proper prefix of one parses. (A writer that
 * appends after a complete document, or rewrites a file in place without truncating it, could be
 * caught mid-way; the short hold-still of complete content covers a writer still at work.)
 */
export function isCompleteJson(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null;
  } catch {
    return false;
  }
}
