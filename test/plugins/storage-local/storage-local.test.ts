import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
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

test('a small and a large buffer are stored whole, each under its key, and leave no temp file', async () => {
  const started = await startPlugin(storageLocal, { dataDir, settings: { root: 'sizes' } });
  try {
    const storage = started.instance.providers.storage!;
    // A fax of a few pages, and one past the size written with synchronous calls.
    const small = randomBytes(3000);
    const large = randomBytes(3 * 1024 * 1024);
    assert.is((await storage.put('fax/small/document.pdf', small)).size, small.length);
    assert.is((await storage.put('fax/large/document.pdf', large)).size, large.length);
    assert.ok((await storage.get('fax/small/document.pdf')).equals(small));
    assert.ok((await storage.get('fax/large/document.pdf')).equals(large));
    assert.equal(readdirSync(path.join(dataDir, 'sizes/.tmp')), []);
  } finally {
    await started.stop();
  }
});

test.run();
