import { suite } from 'uvu';
import { conformance } from 'switchboard/sdk/testing';
import storageLocal from '../../../plugins/storage-local/index.js';
import storageS3 from '../../../plugins/storage-s3/index.js';
import { isolatedBuiltin } from '../../support/isolated-builtin.js';
import { removeDir, tempDir } from '../../support/gateway.js';
import { S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, startS3Server, type S3Server } from '../../support/s3-server.js';

// The kit's storage suite against the built-in storage plugins in a child process, as
// PLUGIN_ISOLATION=<id>=process runs them: every call, stream and error crosses the boundary,
// so a contract that only holds in-process fails here.

// A child process per case on a loaded machine.
const timeouts = { startMs: 30_000 };
const dataDir = tempDir('switchboard-isolated-storage-');

{
  const test = suite('storage-local, isolated: storage conformance');
  test.after(() => removeDir(dataDir));
  for (const c of conformance.storage({ plugin: storageLocal, pluginId: 'storage-local', dataDir, settings: { root: 'conformance' }, isolation: isolatedBuiltin('storage-local'), timeouts })) test(c.name, c.run);
  test.run();
}

{
  const test = suite('storage-s3, isolated: storage conformance');
  let s3: S3Server;
  test.before(async () => {
    s3 = await startS3Server(['artifacts']);
  });
  test.after(async () => {
    await s3.close();
  });
  // The endpoint is read when each case starts the plugin, after before() started the server.
  const options = {
    plugin: storageS3,
    pluginId: 'storage-s3',
    isolation: isolatedBuiltin('storage-s3'),
    timeouts,
    get env() {
      return { S3_BUCKET: 'artifacts', S3_ENDPOINT_URL: s3.url, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_PREFIX: 'conformance-isolated/' };
    },
  };
  for (const c of conformance.storage(options)) test(c.name, c.run);
  test.run();
}
