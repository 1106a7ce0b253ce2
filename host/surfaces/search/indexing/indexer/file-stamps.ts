import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../../../../core/config/atomic-file.js';
import type { DirListing } from './file-walk.js';

/** What a file looked like when it was last indexed: size, mtime, the content hash and the inode. */
export type Stamp = [size: number, mtimeMs: number, hash: string, ino?: number];

/** The hash of a stamp whose file was passed over (binary or minified content): no content hash is kept. */
export const SKIPPED_HASH = 'skipped';

/** The file's size, mtime and inode are those of the stamp (a stamp without an inode never matches). */
export function sameStamp(stamp: Stamp, file: { size: number; mtimeMs: number; ino: number }): boolean {
  return stamp[0] === file.size && stamp[1] === file.mtimeMs && stamp[3] === file.ino;
}

/**
 * The indexer's stat cache (as git's index does): a file whose size, mtime and inode are unchanged and
 * whose recorded hash is the one the index holds is not read again. The content hash in the
 * index stays the authority; a missing or unreadable cache only costs a full read.
 */
export function stampsFile(dataDir: string, repo: string): string {
  return path.join(dataDir, 'index-stamps', `${repo}.json`);
}

/** The stat cache of one repository: file stamps, and the directory listings of the last walk. */
export interface StampCache {
  files: Map<string, Stamp>;
  dirs: Map<string, DirListing>;
  /** The retrieval backend whose index the stamps describe: another backend's index is checked by reading. */
  backend?: string;
}

/** Version 2 holds directories too; an older or unreadable file reads as empty (every file is read once). */
export async function readStamps(file: string): Promise<StampCache> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { v?: number; files?: Record<string, Stamp>; dirs?: Record<string, DirListing>; backend?: string };
    if (parsed.v !== 2) throw new Error('old format');
    return { files: new Map(Object.entries(parsed.files ?? {})), dirs: new Map(Object.entries(parsed.dirs ?? {})), ...(typeof parsed.backend === 'string' ? { backend: parsed.backend } : {}) };
  } catch {
    return { files: new Map(), dirs: new Map() };
  }
}

export async function writeStamps(file: string, cache: StampCache): Promise<void> {
  await writeFileAtomic(file, JSON.stringify({ v: 2, ...(cache.backend ? { backend: cache.backend } : {}), files: Object.fromEntries(cache.files), dirs: Object.fromEntries(cache.dirs) }), { private: true });
}
