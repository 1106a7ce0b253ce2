import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verifyWebhookSignature } from '../../../../clients/typescript/src/index.js';
import { startAlertReceiver, type AlertReceiver } from '../../../fakes/alert-receiver.js';
import { makePdf } from '../../../fakes/fax-document-server.js';
import { gatewayDb } from '../../../support/database.js';
import { json, removeDir, startGateway, tempDir, until, type TestGateway } from '../../../support/gateway.js';

// A gateway's database holds secrets (status webhook signing secrets, the document link secret,
// git credentials): with SECRETS_KEY they are stored sealed, and the ones stored before are sealed at start.
const KEY = 'stored-secrets-admin-key';
const SIM_SECRET = 'sim-secret-of-sixteen-or-more';
const K1 = 'k1-a-secrets-key-of-at-least-32-characters';
const K2 = 'k2-another-secrets-key-of-at-least-32-chars';

let receiver: AlertReceiver;
let pdf: Buffer;
let dataDir: string;
let gw: TestGateway | undefined;

const env = (extra: Record<string, string> = {}) => ({
  API_KEY: KEY,
  FAX_BACKEND: 'fax-sim',
  FAX_SIM_SECRET: SIM_SECRET,
  INBOUND_ENABLED: 'true',
  ALERT_ALLOW_HTTP_LOOPBACK: 'true',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_DELIVERY_POLL_MS: '20',
  ...extra,
});

async function start(extra: Record<string, string> = {}): Promise<TestGateway> {
  gw = await startGateway(env(extra), { dataDir });
  await until(() => gw!.gateway.kernel.isActive('fax', 'fax-sim'), 15000).catch((err) => {
    console.error(gw!.logs.filter((l) => /fax-sim|error|warn/i.test(l)).slice(-20).join('\n'));
    throw err;
  });
  return gw;
}

/** Stops the gateway and keeps its DATA_DIR for the next start. */
async function stop(): Promise<void> {
  await gw?.gateway.close();
  gw = undefined;
}

const call = (g: TestGateway, method: string, path: string, body?: unknown) =>
  fetch(`${g.url}${path}`, { method, headers: { 'x-api-key': KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

async function receiveInbound(g: TestGateway): Promise<string> {
  const body = JSON.stringify({ from: '+15550004444', to: '+15550005555', pdf_base64: pdf.toString('base64') });
  const signature = createHmac('sha256', SIM_SECRET).update(body).digest('hex');
  const res = await fetch(`${g.url}/webhooks/fax-sim/inbound`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-fax-sim-signature': signature }, body });
  assert.is(res.status, 200, await res.clone().text());
  return ((await res.json()) as { id: string }).id;
}

const stored = async (g: TestGateway) => {
  const db = gatewayDb(g.gateway);
  const subscription = await db.selectFrom('fax_webhook_subscriptions').select('secret').executeTakeFirstOrThrow();
  const token = await db.selectFrom('host_kv').select('value').where('key', '=', 'document_token_secret').executeTakeFirstOrThrow();
  return { subscription: subscription.secret, documentSecret: token.value };
};

test.before(async () => {
  pdf = await makePdf(1);
  receiver = await startAlertReceiver({ tls: false });
  dataDir = tempDir();
});
test.after(async () => {
  await stop();
  await receiver?.close();
  removeDir(dataDir);
});

test('secrets stored plain are sealed when SECRETS_KEY is set, keep working, need the key to start, and move to a new key', async () => {
  // Without a key: stored as they come (as before SECRETS_KEY existed).
  let g = await start();
  const created = await call(g, 'POST', '/webhooks/subscriptions', { url: `${receiver.url}?sealed`, events: ['inbound.received'] });
  assert.is(created.status, 201, await created.clone().text());
  const { secret } = (await created.json()) as { secret: string };
  const before = await stored(g);
  assert.is(before.subscription, secret);
  const inboundId = await receiveInbound(g);
  const pdfUrl = ((await json(await call(g, 'GET', `/inbound/${inboundId}`))) as { pdf_url: string }).pdf_url;
  await stop();

  // With K1: sealed at start; the subscription still signs with its secret, an earlier link still opens.
  g = await start({ SECRETS_KEY: K1 });
  const sealed = await stored(g);
  assert.match(sealed.subscription, /^sb-sealed:v1:/);
  assert.match(sealed.documentSecret, /^sb-sealed:v1:/);
  assert.not.ok(sealed.subscription.includes(secret.slice(6)), 'no part of the secret in the row');
  assert.not.ok(sealed.documentSecret.includes(before.documentSecret));
  assert.is((await fetch(`${g.url}${pdfUrl}`)).status, 200, 'a link issued before sealing is still valid');
  await receiveInbound(g);
  const delivered = await until(() => receiver.received.find((r) => r.path?.endsWith('?sealed') && r.answered === 200), 15000);
  assert.is((await verifyWebhookSignature({ body: delivered.raw!, signature: delivered.headers['x-switchboard-signature'] as string, secret })).ok, true);
  await stop();

  // Without the key a sealed database does not start, and says which setting it needs.
  let refused: Error | undefined;
  try {
    await start();
  } catch (err) {
    refused = err as Error;
  }
  assert.ok(refused, 'a gateway without SECRETS_KEY refuses a sealed database');
  assert.match(refused!.message, /SECRETS_KEY is not set/);
  gw = undefined;

  // A key too short is refused rather than storing secrets plain.
  refused = undefined;
  try {
    await start({ SECRETS_KEY: 'short' });
  } catch (err) {
    refused = err as Error;
  }
  assert.match(refused?.message ?? '', /^SECRETS_KEY: at least 32 characters.*not starting rather than storing secrets unsealed$/);
  gw = undefined;

  // Rotation: K2 with K1 as the previous key seals again under K2; then K2 alone starts.
  g = await start({ SECRETS_KEY: K2, SECRETS_KEY_PREVIOUS: K1 });
  const rotated = await stored(g);
  assert.match(rotated.subscription, /^sb-sealed:v1:/);
  assert.is.not(rotated.subscription.split(':')[2], sealed.subscription.split(':')[2], 'another key id');
  await stop();
  g = await start({ SECRETS_KEY: K2 });
  assert.is((await fetch(`${g.url}${pdfUrl}`)).status, 200);
});

test.run();
