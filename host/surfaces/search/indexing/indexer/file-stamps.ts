import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../../../../../core/config/atomic-file.js';

/** What a file looked like when it was last indexed: size, mtime, the content hash and the inode. */
export type Stamp = [size: number, mtimeMs: number, hash: string, ino?: number];

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

export async function readStamps(file: string): Promise<Map<string, Stamp>> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Record<string, Stamp>;
    return new Map(Object.entries(parsed));
  } catch {
    return new Map();
  }
}

export async function writeStamps(file: string, stamps: Map<string, Stamp>): Promise<void> {
  await writeFileAtomic(file, JSON.stringify(Object.fromEntries(stamps)), { private: true });
}
