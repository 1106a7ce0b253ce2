import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderDryRun, type DryRunRequest } from '../../../../core/declarative/http-fax/index.js';
import { httpFaxManifest } from './manifest-fixture.js';

const manifest = httpFaxManifest({
  settings: {
    base_url: { type: 'string', required: true },
    region: { type: 'string', enum: ['us', 'eu'], default: 'us' },
    retries: { type: 'integer', default: 2 },
    token: { type: 'string', secret: true, required: true },
  },
  http: {
    actions: {
      send: {
        method: 'POST',
        url: '{{ settings.base_url }}/faxes',
        auth: { kind: 'bearer', token: '{{ secrets.token }}' },
        body: { kind: 'json', template: { to: '{{ to }}', region: '{{ settings.region }}', retries: '{{ settings.retries }}' } },
      },
      status: { method: 'GET', url: '{{ settings.base_url }}/faxes/{{ provider_sid }}' },
    },
    status_map: {},
  },
});

const sample = (settings: Record<string, unknown>) => ({ settings, jobId: 'job-s', documentUrl: 'http://gw.example/fax/job-s/pdf', providerSid: 'sid-s', publicBaseUrl: 'http://gw.example' });
const allowAll = () => true;

test('sample settings go through the settings schema: defaults, coercion, and a missing secret shown as the mask', async () => {
  const [send] = await renderDryRun(manifest, sample({ base_url: 'http://127.0.0.1:9', retries: '5' }), allowAll);
  const ok = send as Extract<DryRunRequest, { body: string | null }>;
  assert.equal(JSON.parse(ok.body!), { to: '+15551234567', region: 'us', retries: 5 });
  assert.is(ok.headers.Authorization, 'Bearer ***');
});

test('sample settings that do not fit are reported for every action, naming the field, never the value', async () => {
  const out = await renderDryRun(manifest, sample({ base_url: 'http://127.0.0.1:9', region: 'mars', token: 'real-secret-value', retries: 'many' }), allowAll);
  assert.equal(out.map((r) => r.action), ['send', 'status']);
  for (const request of out) {
    assert.ok('error' in request, JSON.stringify(request));
    const error = (request as { error: string }).error;
    assert.match(error, /region/);
    assert.match(error, /retries/);
    assert.not.match(error, /real-secret-value|mars/);
  }
  const missing = await renderDryRun(manifest, sample({}), allowAll);
  assert.match((missing[0] as { error: string }).error, /base_url/);
});

test('the host decides egress: its answer is shown per request', async () => {
  const seen: string[] = [];
  const out = await renderDryRun(manifest, sample({ base_url: 'http://127.0.0.1:9' }), (url) => (seen.push(url.host), false));
  assert.equal(out.map((r) => (r as { egress_allowed: boolean }).egress_allowed), [false, false]);
  assert.equal(seen, ['127.0.0.1:9', '127.0.0.1:9']);
});

test.run();
