import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgressClient, OutboundAddressError, OutboundGuard, resolveEgress, runtimeEgress } from '../../../core/kernel/egress.js';
import { refusedAddressReason } from '../../../core/kernel/outbound-address.js';
import { EgressDeniedError } from '../../../core/sdk/index.js';

let server: Server;
let port = 0;
let reached = 0;
test.before(async () => {
  server = createServer((_req, res) => {
    reached++;
    res.end('reached');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});
test.after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});
test.before.each(() => {
  reached = 0;
});

/** A client for a URL held by a setting written at run time, as the kernel builds it. */
function runtimeClient(url: string, guard = new OutboundGuard()) {
  const entries = ['settings:base_url'];
  const settings = { base_url: url };
  const denied: string[] = [];
  const client = createEgressClient({ egress: resolveEgress(entries, settings), runtime: runtimeEgress(entries, settings, () => false), guard, onDenied: (u) => denied.push(u.host) });
  return { client, denied };
}

// Every spelling the URL parser turns into a non-public address, and the loopback fake behind the first ones.
const SPELLINGS = [
  `http://2130706433:PORT/`,
  `http://127.1:PORT/`,
  `http://0177.0.0.1:PORT/`,
  `http://0x7f.0.0.1:PORT/`,
  `http://0x7f000001:PORT/`,
  `http://[::ffff:127.0.0.1]:PORT/`,
  `http://[::1]:PORT/`,
  `http://0.0.0.0:PORT/`,
  'http://10.0.0.1/',
  'http://172.16.5.4/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/',
  'http://[fc00::1]/',
  'http://[fd00:ec2::254]/',
  'http://[fe80::1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[64:ff9b::7f00:1]/',
];

test('a URL set at run time is refused on a loopback, private, link-local, CGNAT, unique-local or metadata address, in every spelling', async () => {
  for (const spelling of SPELLINGS) {
    const url = spelling.replace('PORT', String(port));
    const { client, denied } = runtimeClient(url);
    const err = await client.fetch(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(err, OutboundAddressError, `${spelling} is refused`);
    assert.instance(err, EgressDeniedError, 'a refusal is an egress denial to plugins');
    assert.match((err as Error).message, /OUTBOUND_ALLOW_HOSTS/);
    assert.equal(denied.length, 1, `${spelling} is reported for the audit`);
  }
  assert.is(reached, 0, 'no request reached the loopback fake');
});

test('a hostname is checked on the addresses DNS gives, by the lookup the connection uses', async () => {
  const url = `http://localhost:${port}/`;
  const err = await runtimeClient(url).client.fetch(url).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, OutboundAddressError);
  assert.match((err as Error).message, /localhost.*resolves to (127\.0\.0\.1|::1)/);
  assert.is(reached, 0);
});

test('OUTBOUND_ALLOW_HOSTS lets a run-time URL reach a named private host, in any spelling of that host', async () => {
  const guard = new OutboundGuard(() => ['127.0.0.1', 'localhost']);
  for (const url of [`http://127.0.0.1:${port}/`, `http://2130706433:${port}/`, `http://localhost:${port}/`]) {
    const res = await runtimeClient(url, guard).client.fetch(url);
    assert.is(await res.text(), 'reached', url);
  }
  assert.is(reached, 3);
  await guard.close();
});

test('an allowed host is still out of reach of a plugin whose egress does not list it', async () => {
  const guard = new OutboundGuard(() => ['127.0.0.1']);
  const entries = ['settings:base_url'];
  const settings = { base_url: 'https://api.example.com' };
  const client = createEgressClient({ egress: resolveEgress(entries, settings), runtime: runtimeEgress(entries, settings, () => false), guard });
  const err = await client.fetch(`http://127.0.0.1:${port}/`).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, EgressDeniedError);
  assert.not.instance(err, OutboundAddressError, 'refused by the manifest egress, not the address rule');
  assert.is(reached, 0);
});

test("the operator's choices are not refused: literal manifest hosts, and settings from the environment or the default", async () => {
  const literal = createEgressClient({ egress: [`127.0.0.1:${port}`] });
  assert.is(await (await literal.fetch(`http://127.0.0.1:${port}/`)).text(), 'reached');
  const entries = ['settings:base_url'];
  const settings = { base_url: `http://127.0.0.1:${port}` };
  const fromEnv = createEgressClient({ egress: resolveEgress(entries, settings), runtime: runtimeEgress(entries, settings, () => true) });
  assert.is(await (await fromEnv.fetch(`http://127.0.0.1:${port}/`)).text(), 'reached');
  assert.is(reached, 2);
});

test('a redirect from a public host to a private one is refused like a direct request', async () => {
  // The fake stands for a public host (allowed); its redirect target is a run-time host that is not.
  const redirecting = createServer((_req, res) => res.writeHead(302, { location: `http://2130706433:${port}/` }).end());
  await new Promise<void>((r) => redirecting.listen(0, '127.0.0.1', () => r()));
  const from = `http://localhost:${(redirecting.address() as AddressInfo).port}/`;
  const entries = ['settings:a', 'settings:b'];
  const settings = { a: from, b: `http://127.0.0.1:${port}` };
  const guard = new OutboundGuard(() => ['localhost']);
  const client = createEgressClient({ egress: resolveEgress(entries, settings), runtime: runtimeEgress(entries, settings, () => false), guard });
  const err = await client.fetch(from).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(err, OutboundAddressError);
  assert.is(reached, 0);
  await guard.close();
  await new Promise<void>((r) => redirecting.close(() => r()));
});

test('request (webhook deliveries) is checked like fetch: a literal or a resolved non-public address is refused, an allowed host is reached over kept connections', async () => {
  const post = { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' };
  const guard = new OutboundGuard();
  for (const url of [`http://127.1:${port}/`, `http://localhost:${port}/`]) {
    const err = await guard.request(new URL(url), post, { timeoutMs: 5000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.instance(err, OutboundAddressError, url);
  }
  assert.is(reached, 0);
  await guard.close();
  const allowing = new OutboundGuard(() => ['localhost']);
  const sockets = new Set<unknown>();
  const count = (s: unknown) => sockets.add(s);
  server.on('connection', count);
  for (let i = 0; i < 10; i++) assert.equal(await allowing.request(new URL(`http://localhost:${port}/hook?x`), post, { timeoutMs: 5000 }), { status: 200 });
  server.off('connection', count);
  assert.is(reached, 10);
  assert.ok(sockets.size <= 2, `10 requests one after the other opened ${sockets.size} connections`);
  await allowing.close();
});

test('address classification: public addresses pass, IPv4 carried in IPv6 is judged as IPv4', () => {
  for (const ok of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '172.32.0.1', '100.128.0.1', '192.169.0.1']) assert.is(refusedAddressReason(ok), undefined, ok);
  for (const bad of ['127.0.0.1', '::ffff:10.0.0.1', '::ffff:7f00:1', '2002:7f00:1::', '::', '224.0.0.1', '255.255.255.255', 'ff02::1', 'not-an-ip']) assert.ok(refusedAddressReason(bad), bad);
});

test.run();
