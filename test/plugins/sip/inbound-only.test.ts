import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, faxDirectionsOf, RejectedError, type FaxWebhookRequest } from 'switchboard/sdk';
import { startPlugin } from 'switchboard/sdk/testing';
import sip from '../../../plugins/sip/index.js';
import { AmiFake } from '../../fakes/ami-fake.js';
import { removeDir, tempDir } from '../../support/gateway.js';

/** The inbound hook needs PBX_INBOUND_SECRET and the spool directory, not the AMI login. */
const SECRET = 'hook-secret-8b2e';
let fake: AmiFake;
let spool: string;

function hook(body: object, secret = SECRET): FaxWebhookRequest {
  return { kind: 'inbound', url: 'http://gw.test/_internal/pbx/inbound', rawBody: Buffer.from(JSON.stringify(body)), contentType: 'application/json', headers: { 'x-internal-secret': secret }, query: {} };
}

test.before(async () => {
  fake = await AmiFake.start({ username: 'switchboard', secret: 'amisecret' });
  spool = tempDir('sip-spool-');
  mkdirSync(spool, { recursive: true });
  writeFileSync(path.join(spool, 'in.tiff'), Buffer.from('II*\0 tiff bytes'));
});
test.after(async () => {
  await fake.close();
  removeDir(spool);
});

test('with the inbound settings and no AMI login it starts for inbound only and never dials the PBX', async () => {
  const plugin = await startPlugin(sip, { pluginId: 'sip', settings: { port: fake.port, inboundSecret: SECRET, spoolDir: spool } });
  try {
    const fax = plugin.instance.providers.fax!;
    assert.equal(faxDirectionsOf(fax), ['inbound']);
    assert.is(fake.connections, 0);
    assert.ok(await fax.verifyWebhook!(hook({})));
    const refused = await Promise.resolve().then(() => fax.verifyWebhook!(hook({}, 'wrong'))).catch((e: unknown) => e);
    assert.is((refused as { status?: number }).status, 401);
    const notice = await fax.parseInbound!(hook({ tiff_path: path.join(spool, 'in.tiff'), to_number: '+15550001', uniqueid: 'u-1' }));
    assert.is(notice.providerId, 'u-1');
    const sent = await fax.send({ jobId: 'j', to: '+15550002', publicBaseUrl: 'http://gw.test', document: undefined as never }).catch((err: unknown) => err);
    assert.instance(sent, RejectedError);
    assert.ok((sent as Error).message.includes('SIP_AMI_USERNAME'), (sent as Error).message);
    const health = await plugin.instance.health!();
    assert.ok(health.ok);
    assert.ok(health.detail!.startsWith('inbound only'));
  } finally {
    await plugin.stop();
  }
});

test('with the AMI login too it serves both directions', async () => {
  const plugin = await startPlugin(sip, { pluginId: 'sip', settings: { port: fake.port, username: 'switchboard', password: 'amisecret', pingIntervalMs: 0, inboundSecret: SECRET, spoolDir: spool } });
  try {
    assert.equal(faxDirectionsOf(plugin.instance.providers.fax!), ['inbound', 'outbound']);
    assert.ok(fake.connections > 0);
  } finally {
    await plugin.stop();
  }
});

test('with neither it waits for settings, naming what each direction needs', async () => {
  const err = await startPlugin(sip, { pluginId: 'sip', settings: { port: fake.port, inboundSecret: SECRET } }).catch((e: unknown) => e);
  assert.instance(err, ConfigError);
  assert.ok((err as Error).message.includes('SIP_AMI_USERNAME') && (err as Error).message.includes('PBX_SPOOL_DIR'), (err as Error).message);
});

test.run();
