import { chmodSync, mkdirSync } from 'node:fs';
import { chmod, mkdir } from 'node:fs/promises';
import path from 'node:path';

/** Files that hold secrets, phone numbers or documents: owner read and write only. */
export const PRIVATE_FILE_MODE = 0o600;
/** Directories that hold such files. */
export const PRIVATE_DIR_MODE = 0o700;

// mkdir's mode is filtered by the umask; the chmod after it makes the mode exact. Only the
// directories created here are changed: an operator's existing directory keeps its mode.
function createdChain(first: string | undefined, dir: string): string[] {
  if (!first) return [];
  const chain: string[] = [];
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    chain.push(d);
    if (d === path.resolve(first) || path.dirname(d) === d) break;
  }
  return chain;
}

/** Creates `dir` (and missing parents) mode 0700, whatever the umask. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const d of createdChain(first, dir)) await chmod(d, PRIVATE_DIR_MODE);
}

export function ensurePrivateDirSync(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  for (const d of createdChain(first, dir)) chmodSync(d, PRIVATE_DIR_MODE);
}

/** Sets an existing file to 0600 (a file made before this version, or by another tool). */
export function restrictFileSync(file: string): void {
  try {
    chmodSync(file, PRIVATE_FILE_MODE);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
