import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { conformance, startPlugin } from 'switchboard/sdk/testing';
import storageLocal from '../../../plugins/storage-local/index.js';
import { removeDir, tempDir } from '../../support/gateway.js';

const dataDir = tempDir();
test.after(() => removeDir(dataDir));

for (const c of conformance.storage({ plugin: storageLocal, dataDir, settings: { root: 'conformance' } })) test(c.name, c.run);

test('objects live under DATA_DIR/<root> and a put leaves no temp file', async () => {
  const started = await startPlugin(storageLocal, { dataDir, settings: { root: 'store' } });
  try {
    const storage = started.instance.providers.storage!;
    await storage.put('fax/j1/document.pdf', Buffer.from('%PDF-'));
    assert.ok(existsSync(path.join(dataDir, 'store/fax/j1/document.pdf')));
    assert.is(storage.localPath!('fax/j1/document.pdf'), path.join(dataDir, 'store/fax/j1/document.pdf'));
    assert.equal(readdirSync(path.join(dataDir, 'store/.tmp')), []);
    assert.throws(() => storage.localPath!('../outside'), /invalid storage key/);
    const health = await started.instance.health!();
    assert.ok(health.ok);
  } finally {
    await started.stop();
  }
});

test.run();
