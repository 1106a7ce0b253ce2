import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { removeDir, tempDir, until } from '../../../../support/gateway.js';
import { startChildGateway, type ChildGateway } from '../../../../support/child-gateway.js';
import { SPILL_BYTES } from '../../../../../host/surfaces/fax/documents/upload-receiver.js';

/** Nothing a killed gateway was writing survives its restart. */
let dataDir: string;
let gateway: ChildGateway | undefined;
const sockets: Socket[] = [];

const env = () => ({ DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), FAX_DISABLED: 'true' });

test.before(() => {
  dataDir = tempDir();
});
test.after(async () => {
  for (const s of sockets) s.destroy();
  await gateway?.kill('SIGKILL');
  removeDir(dataDir);
});

/** Every `.part` file under `dir`, as paths relative to it. */
function partFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.part')) out.push(path.relative(dir, path.join(entry.parentPath, entry.name)));
  }
  return out.sort();
}

/**
 * Starts a POST /fax that sends its first bytes of file and then stalls, as a slow client. More
 * than SPILL_BYTES, so the upload is on its way to a temp file rather than held in memory.
 */
function slowUpload(url: string): Socket {
  const { hostname, port } = new URL(url);
  const boundary = 'slow-upload-boundary';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="to"\r\n\r\n+15551230000\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n`;
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  socket.write(`POST /fax HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${5 * 1024 * 1024}\r\n\r\n`);
  socket.write(head);
  socket.write(Buffer.alloc(SPILL_BYTES + 64 * 1024, 0x25));
  sockets.push(socket);
  return socket;
}

test('a gateway SIGKILLed during uploads leaves no .part file once restarted', async () => {
  gateway = await startChildGateway(env());
  for (let i = 0; i < 3; i++) slowUpload(gateway.url);
  await until(() => readdirSync(path.join(dataDir, 'tmp')).filter((n) => statSync(path.join(dataDir, 'tmp', n)).size > 0).length === 3, 10_000);
  // A put of the storage plugin cut off by the kill, beside its storage root.
  mkdirSync(path.join(dataDir, 'storage', '.tmp'), { recursive: true });
  writeFileSync(path.join(dataDir, 'storage', '.tmp', 'cut-off-put.part'), 'half an object');
  await gateway.kill('SIGKILL');
  for (const s of sockets) s.destroy();
  // The precondition: the killed process did leave its temp files behind.
  const leftovers = partFiles(dataDir);
  assert.is(leftovers.length, 4, leftovers.join(', '));

  gateway = await startChildGateway(env());
  // The leftovers by name: the storage plugin's health probe may be writing a .part of its own now.
  assert.equal(partFiles(dataDir).filter((f) => leftovers.includes(f)), []);
  assert.match(gateway.output(), /removed temp files left by an earlier process/);
  // It still takes uploads into the same directory.
  const form = new FormData();
  form.set('to', '+15551230000');
  form.set('file', new Blob([new Uint8Array(Buffer.from('hello fax\n'))]), 'a.txt');
  assert.is((await fetch(`${gateway.url}/fax`, { method: 'POST', body: form })).status, 202);
  assert.equal(readdirSync(path.join(dataDir, 'tmp')), []);
});

test.run();
