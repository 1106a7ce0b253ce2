import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { startGateway, json, tempDir, until, writeFixturePlugin, type TestGateway } from '../../../../support/gateway.js';
import { startSystemOneFake } from '../../../../fakes/system-one-fake.js';
import { writeTinyCheckpoint } from '../../../../support/judge-checkpoint.js';
import { startJudgeServerProcess, type JudgeServerProcess } from '../../../../support/judge-server-process.js';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { main } from '../../../../../host/cli/main.js';

type Fake = Awaited<ReturnType<typeof startSystemOneFake>>;
let fake: Fake;
let gw: TestGateway;
let server: JudgeServerProcess;
const checkpoints = tempDir('switchboard-checkpoints-');
writeTinyCheckpoint(checkpoints, 'english', { yes: [0, 4], no: [4, 0] });

const ROWS = [
  { question: 'What does the reload queue coalesce?', quote: 'Reloads of one plugin are coalesced.', expected_answer: 'yes reloads' },
  { question: 'Who signs the callback?', quote: 'Provider A signs the body.', expected_answer: 'no one' },
];

const post = (path: string, body?: unknown) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
const metric = async (pattern: RegExp) => pattern.exec(await (await fetch(`${gw.url}/metrics`)).text())?.[1];

test.before(async () => {
  fake = await startSystemOneFake();
  server = await startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: checkpoints, SELFHOSTED_PINNED_CHECKPOINT: 'english' });
  gw = await startGateway({
    SYSTEM_ONE__HOSTED_URL: fake.url,
    HOSTED_JUDGE_API_KEY: 'hk_live_secret',
    SELFHOSTED_HTTP_PORT: String(server.port),
    SYSTEM_ONE__MODEL: 'english',
    SYSTEM_ONE__TIMEOUT_S: '2',
  });
  await until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-hosted')?.state === 'active');
});
test.after(async () => {
  await gw?.close();
  await fake?.close();
  await server?.stop();
  rmSync(checkpoints, { recursive: true, force: true });
});
test.before.each(() => fake.reset());

test('a lab run judges each row with the three questions through the hosted backend; two gate, one is reported', async () => {
  fake.script(
    { body: { model: 'english', answers: { reader_question: { type: 'noul', noul: 0.9 }, answer_supported: { type: 'noul', noul: 0.8 }, answer_cued_in_question: { type: 'noul', noul: 0.9 } }, usage: { input_tokens: 5, output_tokens: 1 } } },
    { body: { model: 'english', answers: { reader_question: { type: 'noul', noul: 0.9 }, answer_supported: { type: 'noul', noul: 0.2 }, answer_cued_in_question: { type: 'noul', noul: 0.1 } }, usage: { input_tokens: 5, output_tokens: 1 } } },
  );
  const res = await post('/api/lab/runs', { rows: ROWS.slice(0, 1) });
  assert.is(res.status, 201);
  const run = await json(res);
  assert.is(run.state, 'succeeded');
  assert.is(run.results[0].passed, true, 'both gating scores are over 0.7; the cue score does not gate');
  const second = await json(await post('/api/lab/runs', { rows: ROWS.slice(1) }));
  assert.is(second.results[0].passed, false, 'answer_supported 0.2 fails the gate');
  assert.equal(second.summary, { rows: 1, passed: 0, cued: 0 });
  const sent = fake.requests[0]!;
  assert.is(sent.headers.authorization, 'Bearer hk_live_secret');
  assert.equal(Object.keys(sent.body.questions), ['reader_question', 'answer_supported', 'answer_cued_in_question']);
  assert.equal(sent.body.state, ROWS[0]);
  assert.is(sent.body.model, 'english', 'system_one.model is sent');
  assert.ok(Number(await metric(/switchboard_system_one_requests_total\{provider="hosted",outcome="ok"\} (\d+)/)) >= 2);
  assert.match(await (await fetch(`${gw.url}/metrics`)).text(), /switchboard_system_one_latency_seconds_count\{provider="hosted"\} \d+/);
});

test('a judge that cannot answer fails the run with the typed reason; a retry replays the stored request', async () => {
  fake.script({ status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
  await post('/api/config', { system_one: { max_retries: 1 } });
  try {
    const run = await json(await post('/api/lab/runs', { rows: ROWS.slice(0, 1), gate_min: 0.5 }));
    assert.is(run.state, 'failed');
    assert.is(run.error.outcome, 'http_error');
    assert.is(run.results, null, 'no default answer is recorded');
    const firstBody = fake.requests[0]!.body;
    fake.reset();
    const retried = await json(await post(`/api/lab/runs/${run.id}/retry`));
    assert.is(retried.state, 'succeeded');
    assert.is(retried.attempts, 2);
    assert.is(retried.request.gate_min, 0.5);
    assert.equal(fake.requests[0]!.body, firstBody, 'the stored request is replayed as it was');
    assert.is((await post(`/api/lab/runs/${run.id}/retry`)).status, 409, 'a succeeded run is not retried');
    assert.ok(Number(await metric(/switchboard_system_one_requests_total\{provider="hosted",outcome="http_error"\} (\d+)/)) >= 1);
  } finally {
    await post('/api/config', { system_one: { max_retries: null } });
  }
});

test('system_one.provider switches live: the next run goes to the self-hosted judge server', async () => {
  let res = await post('/api/config', { system_one: { provider: 'selfhosted' } });
  assert.is(res.status, 200);
  try {
    await until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-selfhosted')?.state === 'active');
    const run = await json(await post('/api/lab/runs', { rows: [{ question: 'yes yes', quote: 'yes yes', expected_answer: 'yes yes' }] }));
    assert.is(run.state, 'succeeded', JSON.stringify(run.error));
    assert.ok(run.results[0].scores.reader_question > 0.5, 'scored by the tiny english checkpoint');
    assert.is(fake.requests.length, 0, 'nothing went to the hosted backend');
    assert.ok(Number(await metric(/switchboard_system_one_requests_total\{provider="selfhosted",outcome="ok"\} (\d+)/)) >= 1);
    res = await fetch(`${gw.url}/api/ready`);
    assert.is(res.status, 200);
    const ready = await json(res);
    assert.equal(ready.dependencies.map((d: any) => d.name), ['database', 'judge-selfhosted']);
    assert.equal(ready.dependencies[1].info.loaded, ['english']);
  } finally {
    await post('/api/config', { system_one: { provider: null } });
  }
  const ready = await json(await fetch(`${gw.url}/api/ready`));
  assert.equal(ready.dependencies.map((d: any) => d.name), ['database'], 'the self-hosted judge is listed only while it is the provider');
});

test('system_one.provider takes a judge plugin id as well as the alias its manifest declares; reports keep the alias', async () => {
  const config = await json(await fetch(`${gw.url}/api/config`));
  assert.is(config.config['system_one.provider'] ?? config.config.system_one?.provider, 'hosted', 'unset, the default judge shows by its alias');
  let res = await post('/api/config', { system_one: { provider: 'judge-selfhosted' } });
  assert.is(res.status, 200);
  try {
    await until(async () => (await json(await fetch(`${gw.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-selfhosted')?.state === 'active');
    const before = Number((await metric(/switchboard_system_one_requests_total\{provider="selfhosted",outcome="ok"\} (\d+)/)) ?? 0);
    const run = await json(await post('/api/lab/runs', { rows: [{ question: 'yes yes', quote: 'yes yes', expected_answer: 'yes yes' }] }));
    assert.is(run.state, 'succeeded', JSON.stringify(run.error));
    assert.is(fake.requests.length, 0, 'nothing went to the hosted backend');
    assert.ok(Number(await metric(/switchboard_system_one_requests_total\{provider="selfhosted",outcome="ok"\} (\d+)/)) > before, 'counted under the spec name');
    const ready = await json(await fetch(`${gw.url}/api/ready`));
    assert.equal(ready.dependencies.map((d: any) => d.name), ['database', 'judge-selfhosted'], 'the id is the same judge as selfhosted');
    res = await post('/api/config', { system_one: { provider: 'no-such-judge' } });
    assert.is(res.status, 200, 'any plugin id is a valid setting');
    const failed = await json(await post('/api/lab/runs', { rows: ROWS.slice(0, 1) }));
    assert.is(failed.state, 'failed');
    assert.equal([failed.error.outcome, /no judge plugin is named "no-such-judge"/.test(failed.error.detail)], ['unavailable', true], failed.error.detail);
  } finally {
    await post('/api/config', { system_one: { provider: null } });
  }
});

test('readiness: an empty self-hosted judge is not ready, with the hint', async () => {
  const empty = tempDir('switchboard-checkpoints-');
  const bare = await startJudgeServerProcess({ SELFHOSTED_CHECKPOINTS_DIR: empty, SELFHOSTED_PINNED_CHECKPOINT: 'none' });
  const other = await startGateway({ SYSTEM_ONE__PROVIDER: 'selfhosted', SELFHOSTED_HTTP_PORT: String(bare.port) });
  try {
    const res = await fetch(`${other.url}/api/ready`);
    assert.is(res.status, 503);
    const body = await json(res);
    assert.equal(body.missing, ['judge-selfhosted']);
    assert.match(body.dependencies[1].hint, /start the managed service .* or set system_one.provider to hosted/);
    const run = await json(await fetch(`${other.url}/api/lab/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows: ROWS.slice(0, 1) }) }));
    assert.is(run.state, 'failed');
    assert.is(run.error.outcome, 'http_error', 'the empty server answers 503 and the run fails with it');
  } finally {
    await other.close();
    await bare.stop();
    rmSync(empty, { recursive: true, force: true });
  }
});

test('without HOSTED_JUDGE_API_KEY the hosted judge waits for config and nothing is sent', async () => {
  const keyless = await startGateway({ SYSTEM_ONE__HOSTED_URL: fake.url });
  try {
    const run = await json(await fetch(`${keyless.url}/api/lab/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows: ROWS.slice(0, 1) }) }));
    assert.is(run.state, 'failed');
    assert.is(run.error.outcome, 'unavailable');
    assert.is(fake.requests.length, 0);
  } finally {
    await keyless.close();
  }
});

test('the environment credential never follows a hosted_url set at run time: /api/config puts the plugin in needs-config, the plugin config write is refused', async () => {
  const fileOnly = await startGateway({ HOSTED_JUDGE_API_KEY: 'k2' });
  try {
    const plugin = async () => (await json(await fetch(`${fileOnly.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-hosted');
    assert.is((await plugin()).state, 'needs-config');
    // system_one.hosted_url from the JSON config file reaches the plugin (bridged), but as a run-time value.
    await fetch(`${fileOnly.url}/api/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ system_one: { hosted_url: `${fake.url}/stolen` } }) });
    await until(async () => /HOSTED_JUDGE_API_KEY/.test((await plugin()).last_error ?? ''));
    const view = await plugin();
    assert.is(view.state, 'needs-config');
    assert.match(view.last_error, /SYSTEM_ONE__HOSTED_URL/);
    assert.match(view.last_error, /host configuration/);
    await fetch(`${fileOnly.url}/api/lab/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows: ROWS.slice(0, 1) }) });
    // Through the plugin's own config: refused at the write, naming the field.
    await fetch(`${fileOnly.url}/api/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ system_one: { hosted_url: null } }) });
    const put = await fetch(`${fileOnly.url}/plugins/judge-hosted/config`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ settings: { hosted_url: `${fake.url}/stolen` } }) });
    assert.is(put.status, 400);
    const body = await json(put);
    assert.is(body.code, 'validation_error');
    assert.match(body.detail, /api_key/);
    assert.is(fake.requests.length, 0, 'nothing, and no credential, reached the run-time URL');
  } finally {
    await fileOnly.close();
  }
});

test('a hosted_url from the environment takes the environment credential; the JSON config file cannot replace it', async () => {
  const fileAndEnv = await startGateway({ HOSTED_JUDGE_API_KEY: 'k2', SYSTEM_ONE__HOSTED_URL: fake.url });
  try {
    const plugin = async () => (await json(await fetch(`${fileAndEnv.url}/plugins`))).plugins.find((p: any) => p.id === 'judge-hosted');
    await until(async () => (await plugin()).state === 'active');
    await fetch(`${fileAndEnv.url}/api/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ system_one: { hosted_url: 'https://judge.attacker.example' } }) });
    const run = await json(await fetch(`${fileAndEnv.url}/api/lab/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rows: ROWS.slice(0, 1) }) }));
    assert.is(run.state, 'succeeded');
    assert.is(fake.requests[0]!.headers.authorization, 'Bearer k2');
  } finally {
    await fileAndEnv.close();
  }
});

test('max_concurrency bounds the calls in flight per caller', async () => {
  await post('/api/config', { system_one: { max_concurrency: 2 } });
  try {
    for (let i = 0; i < 6; i++) fake.script({ delayMs: 150 });
    const rows = Array.from({ length: 6 }, (_, i) => ({ ...ROWS[0]!, question: `q${i}` }));
    const run = await json(await post('/api/lab/runs', { rows }));
    assert.is(run.state, 'succeeded');
    assert.is(fake.requests.length, 6);
    assert.is(fake.maxInFlight() <= 2, true, `in flight at once: ${fake.maxInFlight()}`);
    assert.is(fake.maxInFlight(), 2);
  } finally {
    await post('/api/config', { system_one: { max_concurrency: null } });
  }
});

test('the credential never leaves the server: config and plugin views mask or omit it', async () => {
  for (const path of ['/api/config', '/plugins/judge-hosted/config', '/plugins', '/admin/settings']) {
    const text = await (await fetch(`${gw.url}${path}`)).text();
    assert.not.ok(text.includes('hk_live_secret'), path);
  }
});

test('bad lab input: 422 for empty or oversized rows, 400 for a bad id, 404 for an unknown run', async () => {
  assert.is((await post('/api/lab/runs', { rows: [] })).status, 422);
  assert.is((await post('/api/lab/runs', { rows: [{ question: 'x' }] })).status, 422);
  assert.is((await post('/api/lab/runs', { rows: Array.from({ length: 201 }, () => ROWS[0]) })).status, 422);
  assert.is((await post('/api/lab/runs', { rows: ROWS, gate_min: 2 })).status, 422);
  assert.is((await fetch(`${gw.url}/api/lab/runs/not-an-id`)).status, 400);
  assert.is((await fetch(`${gw.url}/api/lab/runs/00000000-0000-4000-8000-000000000000`)).status, 404);
  assert.is((await post('/api/lab/runs/00000000-0000-4000-8000-000000000000/retry')).status, 404);
});

test('GET /api/judges lists every judge plugin, hosted or self-hosted by its egress, and the one system_one.provider selects as it switches', async () => {
  const judges = async () => {
    const res = await fetch(`${gw.url}/api/judges`);
    assert.is(res.status, 200);
    return json(res);
  };
  let list = await judges();
  assert.is(list.provider, 'hosted');
  assert.equal(list.judges, [
    { id: 'judge-hosted', name: 'Hosted judge', aliases: ['hosted'], hosting: 'hosted', state: 'active', selected: true },
    { id: 'judge-selfhosted', name: 'Self-hosted judge', aliases: ['selfhosted'], hosting: 'self-hosted', state: list.judges[1].state, selected: false },
  ]);
  // Third-party judges, in whatever state: one that may call only loopback, one a named host.
  const folders = [
    writeFixturePlugin(gw.pluginsDir, 'judge-lab-box', 'echo-retrieval', { provides: [{ kind: 'judge', contract: 'judge@^1' }], egress: ['[::1]:9000', 'localhost'] }),
    writeFixturePlugin(gw.pluginsDir, 'judge-vendor', 'echo-retrieval', { provides: [{ kind: 'judge', contract: 'judge@^1' }], egress: ['127.0.0.1', 'judge.vendor.example'] }),
  ].map((file) => path.dirname(file));
  try {
    list = await until(async () => {
      const l = await judges();
      return l.judges.length === 4 && l;
    }, 20_000);
    assert.equal(
      list.judges.map((j: any) => [j.id, j.hosting, j.selected]),
      [
        ['judge-hosted', 'hosted', true],
        ['judge-lab-box', 'self-hosted', false],
        ['judge-selfhosted', 'self-hosted', false],
        ['judge-vendor', 'hosted', false],
      ],
    );
    assert.is((await post('/api/config', { system_one: { provider: 'selfhosted' } })).status, 200);
    list = await judges();
    assert.is(list.provider, 'selfhosted');
    assert.equal(list.judges.filter((j: any) => j.selected).map((j: any) => j.id), ['judge-selfhosted'], 'the alias selects its plugin');
    await post('/api/config', { system_one: { provider: 'judge-vendor' } });
    assert.equal((await judges()).judges.filter((j: any) => j.selected).map((j: any) => j.id), ['judge-vendor']);
    await post('/api/config', { system_one: { provider: 'no-such-judge' } });
    list = await judges();
    assert.is(list.provider, 'no-such-judge');
    assert.equal(list.judges.filter((j: any) => j.selected), [], 'a name no manifest claims selects nothing');
  } finally {
    await post('/api/config', { system_one: { provider: null } });
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    await until(async () => (await judges()).judges.length === 2, 20_000);
  }
});

test('the CLI runs the lab against a gateway and retries a failed run', async () => {
  const file = path.join(gw.dataDir, 'rows.json');
  writeFileSync(file, JSON.stringify(ROWS));
  const lines: string[] = [];
  const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(`ERR ${l}`) };
  assert.is(await main(['lab', 'run', file, '--url', gw.url], io), 0, lines.join('\n'));
  assert.match(lines.join('\n'), /passed 2 of 2/);
  lines.length = 0;
  fake.script({ status: 400 });
  assert.is(await main(['lab', 'run', file, '--url', gw.url, '--gate-min', '0.9'], io), 1);
  const id = /run (\S+): failed/.exec(lines.join('\n'))?.[1];
  assert.ok(id, lines.join('\n'));
  assert.match(lines.join('\n'), /failed: http_error/);
  lines.length = 0;
  assert.is(await main(['lab', 'retry', id!, '--url', gw.url], io), 0, lines.join('\n'));
  assert.match(lines.join('\n'), /succeeded \(attempt 2\)/);
  assert.is(await main(['lab', 'run', path.join(gw.dataDir, 'missing.json'), '--url', gw.url], io), 2);
});

test.run();
