#!/usr/bin/env node
// Builds the console (web/ -> web/dist/) with Vite when web/dist is missing or older than any
// file under web/ (like ensure-build.mjs does for dist/), and prints its gzipped size and the
// build time. `node host/bin/build-web.mjs --force` rebuilds regardless.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const webDir = path.join(root, 'web');
export const webDist = path.join(webDir, 'dist');

function newest(p) {
  if (!existsSync(p)) return 0;
  const info = statSync(p);
  if (!info.isDirectory()) return info.mtimeMs;
  let max = 0;
  for (const name of readdirSync(p)) if (name !== 'node_modules' && name !== 'dist') max = Math.max(max, newest(path.join(p, name)));
  return max;
}

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

/** The built bundle's size in bytes: raw and gzipped, every file of web/dist. */
export function bundleSize(dir = webDist) {
  let raw = 0;
  let gzipped = 0;
  for (const f of files(dir)) {
    const bytes = readFileSync(f);
    raw += bytes.length;
    gzipped += gzipSync(bytes).length;
  }
  return { raw, gzipped };
}

export function webIsStale() {
  const index = path.join(webDist, 'index.html');
  const built = existsSync(index) ? statSync(index).mtimeMs : 0;
  return !built || built < newest(webDir);
}

/** Builds when stale (or forced); returns false when the console cannot be built here (no web/ or no Vite). */
export function ensureWeb({ force = false } = {}) {
  if (!existsSync(path.join(webDir, 'index.html'))) return false;
  if (!force && !webIsStale()) return true;
  const vite = path.join(root, 'node_modules/vite/bin/vite.js');
  if (!existsSync(vite)) {
    console.error('[switchboard] console not built: vite is not installed (npm install with dev dependencies)');
    return false;
  }
  console.error('[switchboard] building the console (web/dist is missing or stale)');
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [vite, 'build', '--config', path.join(webDir, 'vite.config.ts')], { cwd: webDir, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) {
    console.error('[switchboard] console build failed; the API still starts');
    return false;
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const { gzipped } = bundleSize();
  console.error(`[switchboard] console built in ${seconds.toFixed(1)} s, ${(gzipped / 1024).toFixed(1)} KB gzipped`);
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exit(ensureWeb({ force: process.argv.includes('--force') }) ? 0 : 1);
}
