import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Where the generated secret is kept, under the host's data directory. */
export function secretFile(dataDir: string): string {
  return path.join(dataDir, 'fax-sim', 'secret');
}

/**
 * The per-install signing secret: the configured one, else the one generated at the first start
 * (kept owner-readable only, so whoever may read it is whoever administers the install).
 */
export async function installSecret(configured: string | undefined, dataDir: string): Promise<{ secret: string; source: 'setting' | 'file' }> {
  if (configured) return { secret: configured, source: 'setting' };
  const file = secretFile(dataDir);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  try {
    await writeFile(file, `${randomBytes(32).toString('hex')}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    // Another instance (or an earlier start) made it first: use that one.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return { secret: (await readFile(file, 'utf8')).trim(), source: 'file' };
}
