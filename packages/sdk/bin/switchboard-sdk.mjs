#!/usr/bin/env node
// `switchboard-sdk lint [manifest.json...]`: a plugin folder's manifest checked as a host of this
// SDK's version loads it (exit 1 when one has errors), without the host installed.
import { formatLintResult, lintManifests } from '../dist/core/testing/index.js';

const [verb, ...files] = process.argv.slice(2);
if (verb !== 'lint') {
  process.stderr.write('usage: switchboard-sdk lint [manifest.json...]\n');
  process.exit(2);
}
const results = await lintManifests(files.length ? files : ['manifest.json']);
for (const result of results) for (const line of formatLintResult(result)) process.stdout.write(`${line}\n`);
process.exitCode = results.every((r) => r.ok) ? 0 : 1;
