#!/usr/bin/env node
// npm run bench: builds if needed, then runs every dist/bench/*.bench.js in its own process.
// `npm run bench -- <name>...` runs those whose file name contains a name. The long ones in
// EXPLICIT_ONLY (the 5-minute soak, the install that reaches the npm registry) run only when named.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { ensureBuild, root } from './ensure-build.mjs';

const EXPLICIT_ONLY = ['soak', 'install'];

ensureBuild('host/main.js');
const dir = path.join(root, 'dist/bench');
const only = process.argv.slice(2);
let failed = 0;
for (const file of readdirSync(dir).filter((f) => f.endsWith('.bench.js')).sort()) {
  const name = file.replace(/\.bench\.js$/, '');
  if (only.length ? !only.some((o) => file.includes(o)) : EXPLICIT_ONLY.includes(name)) continue;
  console.log(`\n== ${name}`);
  const r = spawnSync(process.execPath, [path.join(dir, file)], { stdio: 'inherit', cwd: root });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
