import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/gateway.js';

// `npm install` installs what the gateway uses: the judge server's ONNX runtime is installed only
// by an operator who asks for it (npm run judge-runtime, its own lock), and npm prints no warning
// about the project's own configuration. The install's time and size: `npm run bench -- install`.

interface Lock {
  packages: Record<string, { version?: string; dev?: boolean; optional?: boolean }>;
}
const rootLock = JSON.parse(readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
const runtimeFolder = path.join(ROOT, 'plugins/judge-selfhosted/runtime');

test('the root lock holds no ONNX runtime binaries; the judge runtime folder locks them apart', () => {
  const heavy = Object.keys(rootLock.packages).filter((p) => /(^|\/)node_modules\/onnxruntime-node$/.test(p));
  assert.equal(heavy, [], 'onnxruntime-node is not part of a plain install');
  const runtimeLock = JSON.parse(readFileSync(path.join(runtimeFolder, 'package-lock.json'), 'utf8')) as Lock;
  assert.ok(runtimeLock.packages['node_modules/onnxruntime-node']?.version, 'npm run judge-runtime installs a locked onnxruntime-node');
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  assert.match(scripts['judge-runtime'] ?? '', /npm ci --prefix plugins\/judge-selfhosted\/runtime --ignore-scripts/);
});

test('npm reads the project configuration without a warning', () => {
  const r = spawnSync('npm', ['pkg', 'get', 'name'], { cwd: ROOT, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.not.match(r.stderr, /npm warn/i);
  assert.is(r.stdout.trim(), '"switchboard"');
});

test.run();
