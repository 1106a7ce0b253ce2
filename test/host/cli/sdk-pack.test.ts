import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, tempDir } from '../../support/gateway.js';
import { packSdk } from '../../../host/cli/sdk-pack.js';
import { sdkDependency } from '../../../host/cli/plugin-scaffold.js';

// The checks of `sdk pack` before npm runs, and how `plugins new` names the SDK it depends on;
// the pack itself and an install from it are tested in test/host/platform/plugins/sdk-package-outside.test.ts.
const work = tempDir('switchboard-sdk-pack-');
const hostVersion = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
test.after(() => rmSync(work, { recursive: true, force: true }));

test('sdk pack refuses an SDK package whose version is not the host\'s, and a host without the package', async () => {
  await packSdk({ hostRoot: ROOT, hostVersion: '9.9.9', outDir: work }).then(
    () => assert.unreachable('packed'),
    (err: Error) => assert.match(err.message, `@switchboard/sdk is at ${hostVersion} but the host at 9.9.9`),
  );
  await packSdk({ hostRoot: work, hostVersion, outDir: work }).then(
    () => assert.unreachable('packed'),
    (err: Error) => assert.match(err.message, /the SDK package is not in this host/),
  );
});

test('plugins new depends on the tarball sdk pack wrote in the current folder, by a path relative to the plugin; else on the host\'s range', () => {
  assert.is(sdkDependency(path.join(work, 'acme'), work, hostVersion), `^${hostVersion}`);
  writeFileSync(path.join(work, `switchboard-sdk-${hostVersion}.tgz`), '');
  assert.is(sdkDependency(path.join(work, 'acme'), work, hostVersion), `file:../switchboard-sdk-${hostVersion}.tgz`);
  assert.is(sdkDependency(path.join(work, 'plugins', 'acme'), work, hostVersion), `file:../../switchboard-sdk-${hostVersion}.tgz`);
});

test.run();
