import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ROOT, tempDir } from '../../support/gateway.js';

// The file guard of worker isolates, in a real worker thread: each attempt below is made after
// the guard is installed, through the ways plugin code reaches files (CommonJS and ES module
// imports of fs, callbacks, promises, streams, a symbolic link planted in the data folder).

let dir: string;
let code: string;
let data: string;
const guardUrl = pathToFileURL(path.join(ROOT, 'dist/core/kernel/isolation/file-guard.js')).href;

test.before(() => {
  dir = tempDir('switchboard-file-guard-');
  code = path.join(dir, 'plugin');
  data = path.join(dir, 'data');
  mkdirSync(code);
  mkdirSync(data);
  writeFileSync(path.join(code, 'own.txt'), 'own');
  writeFileSync(path.join(dir, 'outside.txt'), 'outside');
  symlinkSync(path.join(dir, 'outside.txt'), path.join(data, 'link-out'));
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs each attempt in a guarded worker; returns 'ok' or the error's code per attempt. */
function attempts(list: Record<string, string>): Promise<Record<string, string>> {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    (async () => {
      const { installFileGuard } = await import(workerData.guardUrl);
      installFileGuard({ read: [workerData.code], write: [workerData.data] });
      const fs = require('node:fs');
      const esm = await import('node:fs');
      const fsp = await import('node:fs/promises');
      const out = {};
      for (const [name, body] of Object.entries(workerData.list)) {
        try {
          await new Function('fs', 'esm', 'fsp', 'w', 'return (async () => { ' + body + ' })()')(fs, esm, fsp, workerData);
          out[name] = 'ok';
        } catch (err) {
          out[name] = err.code ?? err.message;
        }
      }
      parentPort.postMessage(out);
    })();`;
  const worker = new Worker(source, { eval: true, workerData: { guardUrl, code, data, outside: path.join(dir, 'outside.txt'), list } });
  return new Promise((resolve, reject) => {
    worker.once('message', (m) => {
      resolve(m as Record<string, string>);
      void worker.terminate();
    });
    worker.once('error', reject);
  });
}

test('reads its own folder and writes its data folder; everything else is refused', async () => {
  const got = await attempts({
    readOwn: "if (fs.readFileSync(w.code + '/own.txt', 'utf8') !== 'own') throw new Error('wrong');",
    writeData: "fs.writeFileSync(w.data + '/x.txt', 'x'); if (fs.readFileSync(w.data + '/x.txt', 'utf8') !== 'x') throw new Error('wrong');",
    readOutside: "fs.readFileSync(w.outside, 'utf8');",
    readPasswd: "fs.readFileSync('/etc/passwd', 'utf8');",
    esmImportRead: "esm.readFileSync('/etc/passwd', 'utf8');",
    promisesRead: "await fsp.readFile('/etc/passwd', 'utf8');",
    callbackRead: "await new Promise((res, rej) => fs.readFile('/etc/passwd', (e, d) => e ? rej(e) : res(d)));",
    streamRead: "fs.createReadStream('/etc/passwd');",
    linkOut: "fs.readFileSync(w.data + '/link-out', 'utf8');",
    traversal: "fs.readFileSync(w.data + '/../outside.txt', 'utf8');",
    writeOwnCode: "fs.writeFileSync(w.code + '/own.txt', 'changed');",
    openForWriteOutside: "fs.openSync(w.outside, 'a');",
    renameOut: "fs.renameSync(w.data + '/x.txt', w.outside + '.moved');",
    listRoot: "fs.readdirSync('/');",
    realpathNative: "fs.realpathSync.native('/etc/passwd');",
  });
  assert.equal(got, {
    readOwn: 'ok',
    writeData: 'ok',
    readOutside: 'ERR_ACCESS_DENIED',
    readPasswd: 'ERR_ACCESS_DENIED',
    esmImportRead: 'ERR_ACCESS_DENIED',
    promisesRead: 'ERR_ACCESS_DENIED',
    callbackRead: 'ERR_ACCESS_DENIED',
    streamRead: 'ERR_ACCESS_DENIED',
    linkOut: 'ERR_ACCESS_DENIED',
    traversal: 'ERR_ACCESS_DENIED',
    writeOwnCode: 'ERR_ACCESS_DENIED',
    openForWriteOutside: 'ERR_ACCESS_DENIED',
    renameOut: 'ERR_ACCESS_DENIED',
    listRoot: 'ERR_ACCESS_DENIED',
    realpathNative: 'ERR_ACCESS_DENIED',
  });
});

test('the gateway thread that started the worker is not confined', async () => {
  await attempts({ any: "fs.readFileSync('/etc/passwd');" });
  const { readFileSync } = await import('node:fs');
  assert.ok(readFileSync('/etc/passwd', 'utf8').length > 0);
});

test.run();
