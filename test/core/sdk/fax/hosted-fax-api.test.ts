import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { NotAcceptedError, RejectedError, UncertainOutcomeError } from 'switchboard/sdk';
import { basicAuthorization, HostedFaxApi } from 'switchboard/sdk/fax';
import { createEgressClient } from '../../../../core/kernel/egress.js';
import { closeServer, listen, readBody } from '../../../fakes/hosted-fax-fake-kit.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;
let handler: Handler = (_req, res) => res.end();
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
const server = createServer(async (req, res) => {
  const body = await readBody(req);
  seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body.toString('utf8') });
  handler(req, res, body);
});
let origin = '';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

function api(timeoutMs = 2000): HostedFaxApi {
  return new HostedFaxApi(
    createEgressClient({ egress: ['127.0.0.1'] }),
    { provider: 'provider X', credentials: 'key and secret', messageOf: (body) => String((body as { message?: string } | undefined)?.message ?? '') },
    { headers: { authorization: basicAuthorization('key', 'secret') }, timeoutMs },
  );
}

const idOf = (answer: unknown) => (answer as { id?: string } | undefined)?.id;

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a failure');
}

test.before(async () => {
  origin = await listen(server);
});
test.after(() => closeServer(server));

test('a send posts with the credentials and JSON accept, and returns the id the answer names', async () => {
  handler = answer(201, { id: 42 });
  const sent = await api().send(`${origin}/faxes`, { body: JSON.stringify({ to: '+1555' }), contentType: 'application/json' }, (a) => (a as { id: number }).id);
  assert.equal(sent, { id: '42', answer: { id: 42 } });
  const request = seen.at(-1)!;
  assert.is(request.method, 'POST');
  assert.is(request.headers.authorization, `Basic ${Buffer.from('key:secret').toString('base64')}`);
  assert.is(request.headers.accept, 'application/json');
  assert.is(request.headers['content-type'], 'application/json');
  assert.is(request.body, '{"to":"+1555"}');
});

test('answers are classified by the shared rules, with the provider words', async () => {
  handler = answer(503, { message: 'maintenance' }, { 'retry-after': '4' });
  const busy = await failure(api().send(`${origin}/faxes`, { body: 'x' }, idOf));
  assert.instance(busy, NotAcceptedError);
  assert.is((busy as NotAcceptedError).retryAfterMs, 4000);
  assert.match(busy.message, /provider X did not accept the fax \(HTTP 503\): maintenance/);
  handler = answer(401, {});
  assert.match((await failure(api().send(`${origin}/faxes`, { body: 'x' }, idOf))).message, /check key and secret/);
  handler = answer(200, { state: 'ok' });
  const noId = await failure(api().send(`${origin}/faxes`, { body: 'x' }, idOf, 'fax sid'));
  assert.instance(noId, UncertainOutcomeError);
  assert.match(noId.message, /without a fax sid/);
});

test('an accepted send whose answer is cut off, or never comes, is uncertain', async () => {
  handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
    res.write('{"id":');
    setTimeout(() => res.destroy(), 20);
  };
  const cut = await failure(api().send(`${origin}/faxes`, { body: 'x' }, idOf));
  assert.instance(cut, UncertainOutcomeError);
  assert.match(cut.message, /cut off/);
  handler = () => {};
  const silent = await failure(api(200).send(`${origin}/faxes`, { body: 'x' }, idOf));
  assert.instance(silent, UncertainOutcomeError);
});

test('a refused connection is not accepted', async () => {
  const closed = createServer();
  const port = Number(new URL(await listen(closed)).port);
  await closeServer(closed);
  const err = await failure(api().send(`http://127.0.0.1:${port}/faxes`, { body: 'x' }, idOf));
  assert.instance(err, NotAcceptedError);
});

test('lookups: failures name the call; a cancel refused with 4xx is Rejected; ping reports reachability', async () => {
  handler = answer(500, { message: 'db down' });
  const lookup = await api().call('GET', `${origin}/faxes/1`);
  assert.equal(lookup, { status: 500, body: { message: 'db down' } });
  assert.is(api().failure('status lookup', lookup).message, 'provider X status lookup failed (HTTP 500): db down');
  assert.not.throws(() => api().checkCancelled({ status: 204, body: undefined }, 's1'));
  assert.instance(catchSync(() => api().checkCancelled({ status: 409, body: { message: 'done' } }, 's1')), RejectedError);
  assert.match(catchSync(() => api().checkCancelled({ status: 502, body: undefined }, 's1'))!.message, /cancel failed \(HTTP 502\)/);
  handler = answer(200, []);
  assert.equal(await api().ping(`${origin}/faxes`), { ok: true, info: { reachable: true } });
  handler = answer(403, {});
  assert.is((await api().ping(`${origin}/faxes`)).detail, 'provider X refused the credentials (HTTP 403)');
  assert.is((await api().ping('http://127.0.0.1:1/faxes')).info?.reachable, false);
});

test('a paged lookup follows the pages until a match, the last page, or the page limit', async () => {
  handler = (req, res) => {
    const page = Number(new URL(req.url ?? '/', origin).searchParams.get('page') ?? '1');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ items: [{ id: `a${page}` }, { id: `b${page}` }], next: page < 3 ? `${origin}/list?page=${page + 1}` : null }));
  };
  const pages = { items: (body: unknown) => (body as { items: unknown }).items, next: (body: unknown) => (body as { next: string | null }).next ?? undefined };
  const before = seen.length;
  assert.equal(await api().findInPages<{ id: string }>('lookup', `${origin}/list`, pages, (item) => item.id === 'b2'), { id: 'b2' });
  assert.is(seen.length - before, 2, 'stops at the page with the match');
  assert.is(await api().findInPages<{ id: string }>('lookup', `${origin}/list`, pages, (item) => item.id === 'zz'), null);
  assert.match((await failure(api().findInPages<{ id: string }>('lookup', `${origin}/list`, pages, () => false, 2))).message, /provider X lookup gave up after 2 pages/);
  handler = answer(200, { items: 'nope' });
  assert.match((await failure(api().findInPages('lookup', `${origin}/list`, pages, () => true))).message, /answered without a list/);
});

function catchSync(fn: () => void): Error | undefined {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  return undefined;
}

test.run();
