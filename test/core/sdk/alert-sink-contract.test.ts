import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ALERT_SINK_CONTRACT, definePlugin, z, type AlertNotice, type AlertSinkProvider, type AlertSinkProviderV1, type PluginDefinition } from '../../../core/sdk/index.js';
import { alertSinkConformance, startPlugin } from '../../../core/testing/index.js';
import { validateManifest } from '../../../core/manifest/index.js';
import { createAlertSinkPlugin } from '../../../core/declarative/alert-sink.js';
import { startAlertReceiver, type AlertReceiver } from '../../fakes/alert-receiver.js';
import { alertNotice } from '../../support/manifest-alert-sink.js';
import { alertManifest, HOST } from '../manifest/fixtures.js';

let receiver: AlertReceiver;

test.before(async () => {
  receiver = await startAlertReceiver({ tls: false });
});
test.after(async () => {
  await receiver?.close();
});
test.before.each(() => {
  receiver.received.length = 0;
});

const NOTICE: AlertNotice = alertNotice({ id: 'fax_backlog_age:1', event_id: 'fax_backlog_age:1/firing:7', type: 'fax_backlog_age', category: 'fax', severity: 'warning', title: 'backlog', starts_at: '2025-01-02T03:04:05.000Z', ends_at: null, labels: { queue: 'main' }, context: { minutes: 12 } });

/** A code sink of the current major: posts the notice it is handed to its receiver. */
const currentSink = definePlugin({
  settings: z.object({ url: z.string() }),
  start: (ctx) => ({
    providers: {
      'alert-sink': {
        async deliver(notice, signal) {
          try {
            const res = await ctx.http.fetch(ctx.settings.url, { method: 'POST', body: JSON.stringify(notice), ...(signal ? { signal } : {}) });
            await res.body?.cancel();
            return res.ok ? { ok: true, status: res.status } : { ok: false, permanent: res.status < 500, status: res.status, detail: `HTTP ${res.status}` };
          } catch (err) {
            return { ok: false, detail: (err as Error).message };
          }
        },
      },
    },
  }),
});

/** A code sink written for major 1: posts the v1 Alert it is handed. */
const v1Sink = definePlugin({
  settings: z.object({ url: z.string() }),
  start(ctx) {
    const sink: AlertSinkProviderV1 = {
      async deliver(alert, signal) {
        const res = await ctx.http.fetch(ctx.settings.url, { method: 'POST', body: JSON.stringify(alert), ...(signal ? { signal } : {}) });
        await res.body?.cancel();
        return { ok: res.ok, status: res.status };
      },
    };
    return { providers: { 'alert-sink': sink as never } };
  },
});

const suiteOf = (plugin: PluginDefinition, contracts?: string[]) => alertSinkConformance({ plugin, settings: { url: receiver.url }, ...(contracts ? { contracts } : {}) });
const failuresOf = async (plugin: PluginDefinition, contracts?: string[]) => {
  const failed: string[] = [];
  for (const c of suiteOf(plugin, contracts)) await c.run().catch((err: Error) => failed.push(`${c.name}: ${err.message}`));
  return failed;
};

test('the contract is major 2: deliver takes the stored notice', () => {
  assert.is(ALERT_SINK_CONTRACT, '2.0.0');
});

test('the alert-sink suite passes a sink of the current contract, which receives the stored notice', async () => {
  assert.equal(await failuresOf(currentSink), []);
  assert.ok(receiver.received.length >= 2, 'the suite delivered to the receiver');
  assert.equal(Object.keys(receiver.received[0]!.body).sort(), Object.keys(NOTICE).sort());
});

test('the suite fails a sink that claims an aborted delivery succeeded', async () => {
  const liar = definePlugin({ start: () => ({ providers: { 'alert-sink': { deliver: async () => ({ ok: true, status: 200 }) } satisfies AlertSinkProvider } }) });
  const failed = await failuresOf(liar);
  assert.equal(failed.length, 1, failed.join('\n'));
  assert.match(failed[0]!, /aborted before it started is not delivered/);
});

test('a sink declared alert-sink@^1 is handed the v1 Alert through the adapter, the notice alongside', async () => {
  const started = await startPlugin(v1Sink, { settings: { url: receiver.url }, contracts: ['alert-sink@^1'] });
  try {
    const outcome = await (started.instance.providers['alert-sink'] as AlertSinkProvider).deliver(NOTICE);
    assert.equal(outcome, { ok: true, status: 200 });
    assert.equal(receiver.received[0]!.body, {
      id: NOTICE.id,
      eventId: NOTICE.event_id,
      type: 'fax_backlog_age',
      category: 'fax',
      severity: 'warning',
      status: 'firing',
      title: 'backlog',
      labels: { queue: 'main' },
      startsAt: NOTICE.starts_at,
      context: { minutes: 12 },
      notice: NOTICE,
    });
  } finally {
    await started.stop();
  }
});

test('without its declared contract the same sink would be handed the notice: the adapter is what converts', async () => {
  const started = await startPlugin(v1Sink, { settings: { url: receiver.url } });
  try {
    await (started.instance.providers['alert-sink'] as AlertSinkProvider).deliver(NOTICE);
    assert.is(receiver.received[0]!.body.startsAt, undefined);
    assert.is(receiver.received[0]!.body.starts_at, NOTICE.starts_at);
  } finally {
    await started.stop();
  }
});

test('a sink declared alert-sink@^1 passes the suite of the current contract through the adapter', async () => {
  assert.equal(await failuresOf(v1Sink, ['alert-sink@^1']), []);
});

test('manifests: alert-sink@^1 still loads (served through the adapter), a major the host does not serve is refused naming both', () => {
  const v1 = validateManifest(alertManifest(), HOST);
  assert.ok(v1.manifest, JSON.stringify(v1.diagnostics));
  const v3 = validateManifest({ ...alertManifest(), provides: [{ kind: 'alert-sink', contract: 'alert-sink@^3' }] }, HOST);
  assert.is(v3.manifest, undefined);
  assert.equal(v3.diagnostics.map((d) => [d.code, d.path]), [['contract-range-unmet', 'provides.0.contract']]);
  assert.match(v3.diagnostics[0]!.message, /2\.0\.0 \(and 1\.2\.0 through an adapter\)/);
});

test('templates read the notice fields; the camelCase names of major 1 only in a manifest declared alert-sink@^1', async () => {
  const body = { text: '{{ alert.severity }} since {{ alert.startsAt }}', at: '{{ alert.starts_at }}' };
  const declared = (contract: string) => ({ ...alertManifest(), provides: [{ kind: 'alert-sink', contract }], egress: ['127.0.0.1'], settings: { url: { type: 'string', secret: true, required: true } }, alert: { url: '{{ secrets.url }}', body } });
  const v2 = validateManifest(declared('alert-sink@^2'), HOST);
  assert.is(v2.manifest, undefined);
  assert.equal(v2.diagnostics.map((d) => [d.code, d.path]), [['invalid-template', 'alert.body.text']]);
  const v1 = validateManifest(declared('alert-sink@^1'), HOST);
  assert.ok(v1.manifest, JSON.stringify(v1.diagnostics));
  const started = await startPlugin(createAlertSinkPlugin(v1.manifest, { allowHttpLoopback: () => true }), { settings: { url: receiver.url } });
  try {
    assert.equal(await (started.instance.providers['alert-sink'] as AlertSinkProvider).deliver(NOTICE), { ok: true, status: 200 });
    assert.equal(receiver.received[0]!.body, { text: `warning since ${NOTICE.starts_at}`, at: NOTICE.starts_at });
  } finally {
    await started.stop();
  }
});

test.run();
