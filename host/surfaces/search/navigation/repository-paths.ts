import { openSync, readSync, closeSync, statSync } from 'node:fs';
import path from 'node:path';
import { isBinary } from '../indexing/indexer/file-walk.js';
import { invalidInput } from '../../../platform/errors/platform-errors.js';

/**
 * A path a request names inside a repository, made plain: relative, "/"-separated, no "." or ".."
 * segment, no NUL. Anything that could leave the repository answers 422 instead of a lookup.
 */
export function repositoryPath(field: string, raw: string | undefined): string {
  const p = (raw ?? '').replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/\/+$/, '');
  if (p.includes('\0')) throw invalidInput(field, 'a path holds no NUL character');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) throw invalidInput(field, `"${p.slice(0, 200)}" is absolute; paths are relative to the repository root`);
  if (p.split('/').some((s) => s === '..' || s === '.')) throw invalidInput(field, `"${p.slice(0, 200)}" leaves the repository or is not plain ("." and ".." are refused)`);
  return p;
}

/**
 * Why a file of the repository's directory is not in the index, when it exists there: binary,
 * larger than INDEX_MAX_FILE_BYTES, or excluded by the walk (ignored, a dependency, minified).
 */
export function whyNotIndexed(repoDir: string, rel: string, maxBytes: number): string {
  const abs = path.resolve(repoDir, rel);
  if (!abs.startsWith(path.resolve(repoDir) + path.sep)) return 'outside the repository';
  let size: number;
  try {
    const st = statSync(abs);
    if (st.isDirectory()) return 'a directory: list it with GET /api/tree';
    size = st.size;
  } catch {
    return 'no such file in the indexed revision';
  }
  if (size > maxBytes) return `oversized: ${size} bytes, over INDEX_MAX_FILE_BYTES (${maxBytes}); not indexed`;
  const fd = openSync(abs, 'r');
  try {
    const head = Buffer.alloc(Math.min(8192, size));
    readSync(fd, head, 0, head.length, 0);
    if (isBinary(head)) return 'binary: not indexed';
  } finally {
    closeSync(fd);
  }
  return 'not indexed (ignored, a dependency, minified, or changed since the last index run)';
}
