import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './gateway.js';

/** True when no file tsc reads here (tsconfig.json's include, the package files) differs from HEAD. */
function buildInputsAreHead(): boolean {
  const tsconfig = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
  const r = spawnSync('git', ['status', '--porcelain', '--', ...tsconfig.include, 'tsconfig.json', 'package.json', 'package-lock.json'], { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() === '';
}

/**
 * Gives a fresh clone of HEAD this checkout's dist/ when tsc's inputs here are HEAD's: the test
 * runner compiled exactly them (40 s of CPU a clone's build would spend on the same files).
 * False when the clone must build itself (the checkout has changes).
 */
export function copyBuildIntoClone(clone: string): boolean {
  if (!buildInputsAreHead()) return false;
  cpSync(path.join(ROOT, 'dist'), path.join(clone, 'dist'), { recursive: true });
  return true;
}
