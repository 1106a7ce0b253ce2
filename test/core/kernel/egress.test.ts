import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgressClient, egressAllows } from '../../../core/kernel/egress.js';
import { EgressDeniedError } from '../../../core/sdk/index.js';

const servers: Server[] = [];
async function serve(handler: (url: string, headers: IncomingHttpHeaders, res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer((req, res) => handler(req.url ?? '/', req.headers, res));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `127.0.0.1:${(server.address() as AddressInfo).port}`;
}
test.after(async () => {
  for (const s of servers) await new Promise<void>((r) => s.close(() => r()));
});

test('patterns: host, host:port, subdomain wildcard; other schemes never', () => {
  assert.ok(egressAllows(['api.example.com'], new URL('https://api.example.com/x')));
  assert.not.ok(egressAllows(['api.example.com:8443'], new URL('https://api.example.com/x')));
  assert.ok(egressAllows(['*.example.com'], new URL('https://a.b.example.com/')));
  assert.not.ok(egressAllows(['*.example.com'], new URL('https://example.com/')));
  assert.not.ok(egressAllows(['api.example.com'], new URL('ftp://api.example.com/')));
});

test('credentials never follow a redirect to another origin; they do follow within it', async () => {
  let seen: IncomingHttpHeaders = {};
  const target = await serve((_url, headers, res) => {
    seen = headers;
    res.end('ok');
  });
  const origin = await serve((url, headers, res) => {
    if (url === '/same') {
      res.writeHead(302, { location: '/final' }).end();
      return;
    }
    if (url === '/final') {
      seen = headers;
      res.end('ok');
      return;
    }
    res.writeHead(302, { location: `http://${target}/landing` }).end();
  });
  const client = createEgressClient({ egress: [origin, target] });
  const headers = { authorization: 'Bearer secret', 'x-api-key': 'k', 'x-trace': 't' };
  await client.fetch(`http://${origin}/away`, { headers, credentialHeaders: ['X-Api-Key'] });
  assert.is(seen.authorization, undefined);
  assert.is(seen['x-api-key'], undefined);
  assert.is(seen['x-trace'], 't');
  await client.fetch(`http://${origin}/same`, { headers, credentialHeaders: ['X-Api-Key'] });
  assert.is(seen.authorization, 'Bearer secret');
  assert.is(seen['x-api-key'], 'k');
});

test('a redirect to a host outside egress is refused and reported', async () => {
  let reached = false;
  const outside = await serve((_u, _h, res) => {
    reached = true;
    res.end('should not be reached');
  });
  const inside = await serve((_u, _h, res) => res.writeHead(307, { location: `http://${outside}/` }).end());
  const denied: string[] = [];
  const client = createEgressClient({ egress: [inside], onDenied: (u) => denied.push(u.host) });
  const err = await client.fetch(`http://${inside}/`).catch((e) => e);
  assert.instance(err, EgressDeniedError);
  assert.equal(denied, [outside]);
  assert.not.ok(reached);
});

test.run();
