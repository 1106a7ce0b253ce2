import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { create } from 'tar';
import { FILE_LIST, PACKAGE_PREFIX, SIGNATURE_FILE } from './plugin-package.js';

/**
 * Writes a package's entries as a gzip tar under `package/`: files.json first, then the files in
 * name order, with fixed times and owners, so the same plugin packs to the same bytes.
 */
export async function writePackageArchive(entries: Map<string, Buffer>, outFile: string): Promise<void> {
  const stage = await mkdtemp(path.join(tmpdir(), 'switchboard-pack-'));
  try {
    const names = [...entries.keys()].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      const file = path.join(stage, PACKAGE_PREFIX, name);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, entries.get(name)!);
    }
    await create({ gzip: true, cwd: stage, file: outFile, portable: true, mtime: new Date(0), noDirRecurse: true }, names.map((n) => `${PACKAGE_PREFIX}${n}`));
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

function rank(name: string): number {
  return name === FILE_LIST ? 0 : name === SIGNATURE_FILE ? 1 : 2;
}
