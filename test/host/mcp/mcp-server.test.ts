import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { makePdf } from '../../fakes/fax-document-server.js';
import { json, removeDir, ROOT, startGateway, tempDir, until, type TestGateway } from '../../support/gateway.js';
import { writeRepoFile } from '../surfaces/search/search-repo-fixture.js';
import { toolResult } from '../../../host/mcp/tool-result.js';
import { FAKE_PRIVATE_KEY, SECRET_CASES } from '../../support/secret-corpus.js';

// One gateway: FAX_DISABLED stores sent jobs without a provider; a repository with a planted secret.
const BOOT = 'boot-admin-key-for-mcp-tests';
const MCP_KEY = 'mcp-key-for-mcp-tests';
const NUMBER = '+15550104321';
const PLANTED = 'sk-live-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c';
let gw: TestGateway;
let repo: string;
let outbox: string;
let readOnlyKey: string;
let sendKey: string;

/** Code navigation over the code index (host/surfaces/search/navigation). */
const NAVIGATION_TOOLS = ['grep', 'read_file', 'list_tree', 'find_definition', 'find_references', 'search_symbols'];

/** Every navigation tool against the indexed billing repository; the planted key never leaves. */
async function navigate(client: Client): Promise<void> {
  const grep = await call(client, 'grep', { pattern: 'invoice\\w+', regex: 'true', repo: 'billing' });
  assert.equal(grep.files.map((f: any) => f.path).sort(), ['src/billing/invoice-total.ts', 'src/billing/provider-config.ts'], JSON.stringify(grep));
  const def = await call(client, 'find_definition', { name: 'invoiceTotal', repo: 'billing' });
  assert.equal(def.definitions.map((d: any) => [d.path, d.line, d.kind]), [['src/billing/invoice-total.ts', 1, 'function']]);
  const refs = await call(client, 'find_references', { name: 'lines', repo: 'billing' });
  assert.ok(refs.references.some((r: any) => r.line === 2 && r.text.includes('lines.reduce')), JSON.stringify(refs));
  const syms = await call(client, 'search_symbols', { q: 'invoice', repo: 'billing' });
  assert.is(syms.symbols[0].name, 'invoiceTotal');
  const tree = await call(client, 'list_tree', { path: 'src', repo: 'billing' });
  assert.equal(tree.entries.map((e: any) => [e.name, e.type]), [['billing', 'dir']]);
  const file = await call(client, 'read_file', { path: 'src/billing/provider-config.ts', start_line: '2', end_line: '3', repo: 'billing' });
  assert.is(file.start_line, 2);
  assert.ok(file.content.includes('invoiceEndpoint'));
  assert.not.ok(JSON.stringify(file).includes(PLANTED), 'read_file masks the planted key like search_code');
  const outside = await call(client, 'read_file', { path: '../secrets.txt', repo: 'billing' });
  assert.is(outside.error.code, 'validation_error', JSON.stringify(outside));
}

async function connect(key: string | undefined, bearer = false): Promise<Client> {
  const headers: Record<string, string> = key ? (bearer ? { Authorization: `Bearer ${key}` } : { 'X-API-Key': key }) : {};
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers } }));
  return client;
}

/** A tool's answer: its JSON on success; on a tool error, `{error: {detail, code}}`. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ type: string; text: string }> };
  const body = JSON.parse(result.content[0]!.text);
  return result.isError ? { error: body } : body;
}

async function mint(scopes: string[]): Promise<string> {
  const res = await fetch(`${gw.url}/admin/api-keys`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': BOOT }, body: JSON.stringify({ name: scopes.join('+'), scopes }) });
  assert.is(res.status, 201, await res.clone().text());
  return (await json(res)).token;
}

test.before(async () => {
  repo = tempDir('mcp-repo-');
  writeRepoFile(repo, 'src/billing/invoice-total.ts', 'export function invoiceTotal(lines: number[]): number {\n  return lines.reduce((a, b) => a + b, 0);\n}\n');
  writeRepoFile(repo, 'src/billing/provider-config.ts', `// invoice provider settings\nexport const invoiceEndpoint = "https://billing.example/invoices";\nconst STRIPE_API_KEY = "${PLANTED}";\nexport const invoiceRetries = 3;\n`);
  SECRET_CASES.forEach((c, i) => writeRepoFile(repo, `config/corpus/case-${i}.txt`, `${c.text}\n`));
  writeRepoFile(repo, 'deploy/id_rsa', `# deploy key of the staging host\n${FAKE_PRIVATE_KEY}\n# end of the deploy key\n`);
  outbox = tempDir('mcp-outbox-');
  writeFileSync(path.join(outbox, 'letter.pdf'), await makePdf(3));
  const outside = tempDir('mcp-outside-');
  writeFileSync(path.join(outside, 'private.pdf'), await makePdf(1));
  symlinkSync(path.join(outside, 'private.pdf'), path.join(outbox, 'link-out.pdf'));
  mkdirSync(path.join(outbox, 'sub'));
  gw = await startGateway({
    FAX_DISABLED: 'true',
    API_KEY: BOOT,
    MCP_API_KEY: MCP_KEY,
    MCP_OUTBOX_DIR: outbox,
    AUDIT_LOG_ENABLED: 'true',
    REPOS: JSON.stringify({ billing: repo }),
    REPO: 'billing',
    LOG_LEVEL: 'info',
  });
  readOnlyKey = await mint(['search:read']);
  sendKey = await mint(['fax:send', 'fax:read']);
});
test.after(async () => {
  await gw.close();
  removeDir(repo);
  removeDir(outbox);
});

test('the tools are listed with their annotations: read-only ones read-only, send_fax destructive', async () => {
  const client = await connect(BOOT);
  try {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const expected = ['get_fax_status', 'list_faxes', 'list_inbound', 'get_inbound', 'list_mailboxes', 'search_code', 'answer_question', 'start_index', 'index_status', 'list_plugins', 'plugin_health', 'list_alerts', 'prepare_fax', 'send_fax', 'cancel_fax', 'resend_fax', 'list_git_repositories', 'fetch_git_repository', ...NAVIGATION_TOOLS];
    assert.equal([...byName.keys()].sort(), [...expected].sort());
    for (const name of ['get_fax_status', 'list_faxes', 'list_inbound', 'get_inbound', 'list_mailboxes', 'search_code', 'answer_question', 'index_status', 'list_plugins', 'plugin_health', 'list_alerts', 'list_git_repositories', ...NAVIGATION_TOOLS]) {
      assert.is(byName.get(name)!.annotations?.readOnlyHint, true, name);
    }
    assert.is(byName.get('send_fax')!.annotations?.readOnlyHint, false);
    assert.is(byName.get('send_fax')!.annotations?.destructiveHint, true);
    assert.is(byName.get('start_index')!.annotations?.readOnlyHint, false);
    for (const name of ['cancel_fax', 'resend_fax', 'fetch_git_repository']) assert.is(byName.get(name)!.annotations?.readOnlyHint, false, name);
    assert.is(byName.get('fetch_git_repository')!.annotations?.openWorldHint, true);
  } finally {
    await client.close();
  }
});

test('index, status, search and answer: a secret planted in an indexed file comes back masked', async () => {
  const client = await connect(BOOT);
  try {
    const started = await call(client, 'start_index', { repo: 'billing' });
    assert.is(started.state, 'running', JSON.stringify(started));
    const status = await until(async () => {
      const s = await call(client, 'index_status', { repo: 'billing' });
      return s.metadata?.finished_at ? s : undefined;
    }, 60_000, 100);
    assert.is(status.run.state, 'finished', JSON.stringify(status));
    const found = await call(client, 'search_code', { q: 'invoice provider settings STRIPE_API_KEY', repo: 'billing' });
    const text = JSON.stringify(found);
    assert.ok(found.results.some((r: any) => r.path === 'src/billing/provider-config.ts'), text);
    assert.not.ok(text.includes(PLANTED), 'the planted key never leaves over MCP');
    assert.ok(text.includes('[redacted: credential-shaped]'), text);
    assert.ok(text.includes('invoiceRetries'), 'the other lines stay');
    // The HTTP API itself still shows the file as indexed: the masking is MCP's.
    const direct = await json(await fetch(`${gw.url}/api/search?q=STRIPE_API_KEY&repo=billing`, { headers: { 'x-api-key': BOOT } }));
    assert.ok(JSON.stringify(direct).includes(PLANTED), 'the plant is in the index');
    const answer = await call(client, 'answer_question', { question: 'which invoice provider key is configured?', repo: 'billing' });
    assert.not.ok(answer.error, JSON.stringify(answer));
    assert.not.ok(JSON.stringify(answer).includes(PLANTED), JSON.stringify(answer));
    await navigate(client);
  } finally {
    await client.close();
  }
});

test('the fake-secret corpus in the index never leaves over MCP: read_file, grep and search_code snippets, a key cut into chunks', async () => {
  const client = await connect(BOOT);
  try {
    const leaks = (answer: unknown, where: string) => {
      const text = JSON.stringify(answer);
      for (const c of SECRET_CASES) for (const secret of c.secrets) assert.not.ok(text.includes(secret), `${where}: "${c.name}" leaked ${secret}`);
    };
    for (const [i, c] of SECRET_CASES.entries()) {
      const file = await call(client, 'read_file', { path: `config/corpus/case-${i}.txt`, repo: 'billing' });
      assert.not.ok(file.error, JSON.stringify(file));
      leaks(file, `read_file ${c.name}`);
      assert.ok(file.content.includes('[redacted: credential-shaped]'), c.name);
    }
    const keyLines = FAKE_PRIVATE_KEY.split('\n');
    // A grep hit in the middle of the key block: the line alone, without its BEGIN.
    const inside = await call(client, 'grep', { pattern: keyLines[9]!.slice(0, 16).replace(/[+/]/g, '.'), regex: 'true', repo: 'billing' });
    assert.ok(JSON.stringify(inside).includes('deploy/id_rsa'), JSON.stringify(inside));
    leaks(inside, 'grep');
    for (const q of ['deploy key of the staging host', 'RSA PRIVATE KEY', 'password database smtp secret', 'slack webhook token key']) {
      const found = await call(client, 'search_code', { q, repo: 'billing', top_k: '20' });
      assert.not.ok(found.error, JSON.stringify(found));
      leaks(found, `search_code ${q}`);
    }
    const key = await call(client, 'search_code', { q: 'deploy key of the staging host', repo: 'billing', top_k: '20' });
    assert.ok(key.results.filter((r: any) => r.path === 'deploy/id_rsa').length >= 1, JSON.stringify(key).slice(0, 400));
  } finally {
    await client.close();
  }
});

test('prepare_fax previews and send_fax sends exactly the approved document, once', async () => {
  const client = await connect(BOOT);
  try {
    const pdf = await makePdf(2);
    const preview = await call(client, 'prepare_fax', { to: NUMBER, document_base64: pdf.toString('base64') });
    assert.is(preview.pages, 2);
    assert.is(preview.to, '***4321');
    assert.is(preview.sha256, createHash('sha256').update(pdf).digest('hex'));
    assert.ok(preview.approval_id);
    const job = await call(client, 'send_fax', { approval_id: preview.approval_id, to: NUMBER, sha256: preview.sha256 });
    assert.ok(job.id, JSON.stringify(job));
    assert.is(job.pages, 2);
    // Masked as the preview masks it, in every answer (the HTTP API answers the number in full).
    assert.is(job.to, preview.to);
    const again = await call(client, 'send_fax', { approval_id: preview.approval_id });
    assert.match(again.error.detail, /used already/);
    // send_at goes along with the approval: the job waits for its time.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const next = await call(client, 'prepare_fax', { to: NUMBER, document_base64: pdf.toString('base64') });
    const scheduled = await call(client, 'send_fax', { approval_id: next.approval_id, send_at: later });
    assert.is(scheduled.send_at, later, JSON.stringify(scheduled));
    const status = await call(client, 'get_fax_status', { job_id: job.id });
    assert.is(status.id, job.id);
    assert.is(status.to, '***4321');
    assert.not.ok(JSON.stringify(status).includes(NUMBER.slice(1)), JSON.stringify(status));
    assert.is((await json(await fetch(`${gw.url}/fax/${job.id}`, { headers: { 'x-api-key': BOOT } }))).to, NUMBER);
    const listed = await call(client, 'list_faxes', { limit: 10 });
    assert.is(listed.jobs.filter((j: any) => j.id === job.id).length, 1, 'sent once');
    const missing = await call(client, 'get_fax_status', { job_id: 'no-such-job' });
    assert.ok(missing.error.detail, JSON.stringify(missing));
    assert.not.ok(/at .*\.js/.test(missing.error.detail), 'no stack');
  } finally {
    await client.close();
  }
});

test('an approval is bound to its number, its document, its caller and its TTL', async () => {
  const client = await connect(BOOT);
  try {
    const pdf = await makePdf(1);
    const preview = await call(client, 'prepare_fax', { to: NUMBER, document_base64: pdf.toString('base64') });
    const otherNumber = await call(client, 'send_fax', { approval_id: preview.approval_id, to: '+15550109999' });
    assert.match(otherNumber.error.detail, /another number/);
    const otherDocument = await call(client, 'send_fax', { approval_id: preview.approval_id, document_base64: (await makePdf(3)).toString('base64') });
    assert.match(otherDocument.error.detail, /another document/);
    const otherHash = await call(client, 'send_fax', { approval_id: preview.approval_id, sha256: 'a'.repeat(64) });
    assert.match(otherHash.error.detail, /another document/);
    const other = await connect(sendKey);
    try {
      const stolen = await call(other, 'send_fax', { approval_id: preview.approval_id });
      assert.match(stolen.error.detail, /unknown approval/);
    } finally {
      await other.close();
    }
    const unknown = await call(client, 'send_fax', { approval_id: 'made-up' });
    assert.match(unknown.error.detail, /unknown approval/);
    const oneStep = await call(client, 'send_fax', { to: NUMBER, document_base64: pdf.toString('base64') });
    assert.match(oneStep.error.detail, /needs an approval_id/);

    await gw.gateway.config.update({ MCP_APPROVAL_TTL_SECONDS: 1 });
    try {
      const short = await call(client, 'prepare_fax', { to: NUMBER, document_base64: pdf.toString('base64') });
      const expiresAt = Date.parse(short.expires_at);
      await until(() => Date.now() > expiresAt + 50, 10_000, 50);
      const expired = await call(client, 'send_fax', { approval_id: short.approval_id });
      assert.match(expired.error.detail, /expired/);
    } finally {
      await gw.gateway.config.update({ MCP_APPROVAL_TTL_SECONDS: 600 });
    }
    // The one that did match still sends.
    const job = await call(client, 'send_fax', { approval_id: preview.approval_id, to: NUMBER });
    assert.ok(job.id, JSON.stringify(job));
  } finally {
    await client.close();
  }
});

test('documents: bad base64 and paths outside the outbox are refused; a file in it is sent', async () => {
  const client = await connect(BOOT);
  try {
    const bad = await call(client, 'prepare_fax', { to: NUMBER, document_base64: 'not base64!!' });
    assert.match(bad.error.detail, /not valid base64/);
    // An existing file outside, a missing one, a symlink out, a folder: one answer, so it tells nothing about the host's files.
    const details = new Set<string>();
    for (const file of ['../../etc/passwd', '/etc/passwd', '/etc/no-such-file-4f1c', '../no-such-file-4f1c', 'link-out.pdf', 'sub', 'missing.pdf']) {
      const outside = await call(client, 'prepare_fax', { to: NUMBER, file_path: file });
      assert.ok(outside.error, `${file}: ${JSON.stringify(outside)}`);
      details.add(outside.error.detail);
    }
    assert.equal([...details], ['file_path must name a file inside the outbox directory (MCP_OUTBOX_DIR)']);
    const preview = await call(client, 'prepare_fax', { to: NUMBER, file_path: 'letter.pdf' });
    assert.is(preview.pages, 3);
    const job = await call(client, 'send_fax', { approval_id: preview.approval_id });
    assert.is(job.pages, 3);
  } finally {
    await client.close();
  }
});

test('a key without the scope can do over MCP only what it can over HTTP', async () => {
  const client = await connect(readOnlyKey);
  try {
    const preview = await call(client, 'prepare_fax', { to: NUMBER, document_base64: (await makePdf(1)).toString('base64') });
    assert.is(preview.error?.code, 'insufficient_scope', JSON.stringify(preview));
    const send = await call(client, 'send_fax', { approval_id: 'any' });
    assert.is(send.error.code, 'insufficient_scope', JSON.stringify(send));
    for (const [tool, args] of [['list_plugins', {}], ['list_alerts', {}], ['list_faxes', {}], ['start_index', {}], ['list_inbound', {}], ['list_mailboxes', {}]] as const) {
      const refused = await call(client, tool, args);
      assert.is(refused.error?.code, 'insufficient_scope', `${tool}: ${JSON.stringify(refused)}`);
    }
    assert.ok((await call(client, 'index_status', { repo: 'billing' })).metadata, 'its own scope works');
  } finally {
    await client.close();
  }
});

test('MCP_API_KEY (as a bearer token) opens /mcp without admin; plugins, alerts and inbound for an admin key', async () => {
  const mcp = await connect(MCP_KEY, true);
  try {
    assert.ok((await call(mcp, 'index_status', { repo: 'billing' })).metadata);
    assert.is((await call(mcp, 'list_plugins')).error?.code, 'insufficient_scope');
  } finally {
    await mcp.close();
  }
  const admin = await connect(BOOT);
  try {
    const { plugins } = await call(admin, 'list_plugins');
    assert.ok(plugins.length > 0);
    const one = await call(admin, 'plugin_health', { plugin_id: plugins[0].id });
    assert.is(one.id, plugins[0].id);
    assert.ok(Array.isArray((await call(admin, 'list_alerts')).alerts));
    // Inbound is off in this gateway: the API's 404 detail comes back as a tool error.
    const inbound = await call(admin, 'list_inbound');
    assert.ok(inbound.error?.detail && !inbound.error.detail.includes('    at '), JSON.stringify(inbound));
    const one404 = await call(admin, 'get_inbound', { inbound_id: 'nope' });
    assert.ok(one404.error?.detail, JSON.stringify(one404));
    // The mailboxes list_inbound filters by, and where an unrouted fax goes.
    const boxes = await call(admin, 'list_mailboxes');
    assert.ok(Array.isArray(boxes.mailboxes), JSON.stringify(boxes));
    assert.type(boxes.default_mailbox, 'string');
  } finally {
    await admin.close();
  }
});

test('/mcp over HTTP: keys required, 16 MB limit answered before the body is read, Host guard, OpenAPI, audit', async () => {
  const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
  const post = (headers: Record<string, string>, body: string | Blob) =>
    fetch(`${gw.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body });
  const none = await post({}, JSON.stringify(init));
  assert.is(none.status, 401);
  assert.is((await json(none)).code, 'unauthorized');
  const wrong = await post({ 'x-api-key': 'nope' }, JSON.stringify(init));
  assert.is(wrong.status, 401);
  const big = await post({ 'x-api-key': BOOT }, new Blob([new Uint8Array(16 * 1024 * 1024 + 10).fill(0x20)]));
  assert.is(big.status, 413);
  const bigBody = await json(big);
  assert.is(bigBody.code, 'payload_too_large');
  assert.ok(bigBody.detail);
  const ok = await post({ 'x-api-key': BOOT }, JSON.stringify(init));
  assert.is(ok.status, 200, await ok.clone().text());
  const notJson = await post({ 'x-api-key': BOOT }, '{not json');
  assert.is(notJson.status, 400);
  const notRpc = await post({ 'x-api-key': BOOT }, JSON.stringify({ hello: 'world' }));
  assert.is(notRpc.status, 400);
  assert.is((await json(notRpc)).code, 'validation_error');
  const jsonOnly = await post({ 'x-api-key': BOOT, accept: 'application/json' }, JSON.stringify(init));
  assert.is(jsonOnly.status, 200, 'a client that accepts only JSON is answered in JSON');
  const { request } = await import('node:http');
  const rebound = await new Promise<number>((resolve, reject) => {
    const req = request(`${gw.url}/mcp`, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json', 'x-api-key': BOOT } }, (res) => (res.resume(), resolve(res.statusCode!)));
    req.on('error', reject);
    req.end(JSON.stringify(init));
  });
  assert.is(rebound, 421);
  const crossSite = await post({ 'x-api-key': BOOT, origin: 'http://evil.example' }, JSON.stringify(init));
  assert.is(crossSite.status, 403);
  assert.is((await fetch(`${gw.url}/mcp`, { headers: { 'x-api-key': BOOT } })).status, 405);
  const doc = await json(await fetch(`${gw.url}/openapi.json`));
  assert.ok(doc.paths['/mcp']?.post?.responses?.['413'], 'documented with its 413');
  assert.ok(doc.paths['/mcp'].post.responses['401']);
  const audits = gw.logs.filter((l) => l.includes('"mcp_call"'));
  assert.ok(audits.some((l) => l.includes('"tool":"send_fax"') && l.includes('"outcome":"ok"') && l.includes('"key_id":"bootstrap"')), audits.join('\n'));
  assert.ok(audits.some((l) => l.includes('"outcome":"error"')));
  assert.not.ok(audits.some((l) => l.includes('JVBER') || l.includes(NUMBER)), 'no arguments in the audit');
});

test('MCP_API_KEY is a secret: masked in the configuration views', async () => {
  const config = await fetch(`${gw.url}/api/config`, { headers: { 'x-api-key': BOOT } });
  const text = await config.text();
  assert.is(config.status, 200, text);
  assert.ok(text.includes('MCP_API_KEY'));
  assert.not.ok(text.includes(MCP_KEY), 'never in clear');
});

test('with no key configured, /mcp answers loopback callers as the platform does', async () => {
  const open = await startGateway({ FAX_DISABLED: 'true', LOG_LEVEL: 'warn' });
  try {
    const client = new Client({ name: 'local', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${open.url}/mcp`)));
    try {
      const plugins = await call(client, 'list_plugins');
      assert.ok(plugins.plugins.length > 0, JSON.stringify(plugins));
    } finally {
      await client.close();
    }
  } finally {
    await open.close();
  }
});

test('switchboard mcp: the same tools over stdio against a running gateway', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, 'dist/host/cli/run.js'), 'mcp'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SWITCHBOARD_URL: gw.url, SWITCHBOARD_API_KEY: BOOT, MCP_OUTBOX_DIR: outbox },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    assert.is(tools.length, 18 + NAVIGATION_TOOLS.length);
    await navigate(client);
    const found = await call(client, 'search_code', { q: 'STRIPE_API_KEY invoice provider', repo: 'billing' });
    assert.ok(found.results.length > 0);
    assert.not.ok(JSON.stringify(found).includes(PLANTED));
    const preview = await call(client, 'prepare_fax', { to: NUMBER, file_path: 'letter.pdf' });
    const job = await call(client, 'send_fax', { approval_id: preview.approval_id });
    assert.is((await call(client, 'get_fax_status', { job_id: job.id })).id, job.id);
    const outside = await call(client, 'prepare_fax', { to: NUMBER, file_path: '../x.pdf' });
    assert.ok(outside.error);
    // Every other tool answers over stdio as over HTTP.
    assert.is((await call(client, 'list_faxes', { limit: 5 })).jobs.some((j: any) => j.id === job.id), true);
    assert.ok((await call(client, 'index_status', { repo: 'billing' })).metadata);
    assert.ok((await call(client, 'answer_question', { question: 'how is the invoice total computed?', repo: 'billing' })).answer !== undefined);
    const { plugins } = await call(client, 'list_plugins');
    assert.is((await call(client, 'plugin_health', { plugin_id: plugins[0].id })).id, plugins[0].id);
    assert.ok(Array.isArray((await call(client, 'list_alerts')).alerts));
    assert.ok((await call(client, 'list_inbound')).error?.detail, 'inbound is off: the API detail');
    assert.ok((await call(client, 'get_inbound', { inbound_id: 'nope' })).error?.detail);
    const started = await call(client, 'start_index', { repo: 'billing' });
    assert.ok(started.state || started.error?.code === 'index_running', JSON.stringify(started));
    await until(async () => ((await call(client, 'index_status', { repo: 'billing' })).run?.state !== 'running' ? true : undefined), 60_000, 100);
    const bad = await call(client, 'prepare_fax', { to: NUMBER, document_base64: '%%%' });
    assert.match(bad.error.detail, /not valid base64/);
    const other = await call(client, 'prepare_fax', { to: NUMBER, document_base64: (await makePdf(1)).toString('base64') });
    assert.match((await call(client, 'send_fax', { approval_id: other.approval_id, to: '+15550100000' })).error.detail, /another number/);
  } finally {
    await client.close();
  }
});

test('tools/list over stdio equals tools/list over HTTP: one builder, one /openapi.json', async () => {
  const stdio = new Client({ name: 'stdio-list', version: '1.0.0' });
  await stdio.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, 'dist/host/cli/run.js'), 'mcp'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SWITCHBOARD_URL: gw.url, SWITCHBOARD_API_KEY: BOOT }, stderr: 'pipe' }));
  const http = await connect(BOOT);
  try {
    const overStdio = (await stdio.listTools()).tools;
    const overHttp = (await http.listTools()).tools;
    assert.is(overHttp.length, 18 + NAVIGATION_TOOLS.length);
    assert.equal(overStdio, overHttp);
    // Each comes from the x-mcp-tool of its route in the document.
    const doc = await json(await fetch(`${gw.url}/openapi.json`));
    assert.equal(doc.paths['/fax/{id}'].get['x-mcp-tool'].arguments.job_id, { in: 'path', name: 'id' });
    assert.is(doc.paths['/fax/{id}/report'].get['x-mcp-tool'], undefined, 'an unmarked route is no tool');
  } finally {
    await stdio.close();
    await http.close();
  }
});

/** The message a resource read fails with ('' when it does not fail). */
async function readError(client: Client, request: { uri: string }): Promise<string> {
  try {
    await client.readResource(request);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}

/** The progress notifications of an answer_question call, and its answer. */
async function answerWithProgress(client: Client): Promise<{ answer: any; progress: Array<{ progress: number; message?: string }> }> {
  const progress: Array<{ progress: number; message?: string }> = [];
  const result = (await client.callTool({ name: 'answer_question', arguments: { question: 'which invoice provider key is configured?', repo: 'billing' } }, undefined, { onprogress: (p) => void progress.push(p) })) as any;
  return { answer: JSON.parse(result.content[0].text), progress };
}

test('answer_question sends progress notifications over HTTP and stdio, and the answer stays redacted', async () => {
  const http = await connect(BOOT);
  try {
    const { answer, progress } = await answerWithProgress(http);
    // The SDK's client handles notifications a microtask late, so one read in the same chunk as the
    // response (the last, 'answer ready') may be dropped: the ones sent while it works must arrive.
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.is(progress[0]!.message, 'searching the repository');
    assert.ok(progress.some((p) => /^writing the answer/.test(p.message ?? '')), JSON.stringify(progress));
    assert.ok(progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress), 'progress increases');
    assert.ok(answer.answer !== undefined && Array.isArray(answer.citations), JSON.stringify(answer));
    assert.not.ok(JSON.stringify({ answer, progress }).includes(PLANTED));
    // Without a progressToken the call is answered as before (JSON, no notifications).
    assert.ok((await call(http, 'answer_question', { question: 'invoice total', repo: 'billing' })).citations);
  } finally {
    await http.close();
  }
  const stdio = new Client({ name: 'stdio-progress', version: '1.0.0' });
  await stdio.connect(
    new StdioClientTransport({ command: process.execPath, args: [path.join(ROOT, 'dist/host/cli/run.js'), 'mcp'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SWITCHBOARD_URL: gw.url, SWITCHBOARD_API_KEY: BOOT }, stderr: 'pipe' }),
  );
  try {
    const { answer, progress } = await answerWithProgress(stdio);
    assert.ok(progress.length >= 2, JSON.stringify(progress));
    assert.is(progress[0]!.message, 'searching the repository');
    assert.not.ok(JSON.stringify(answer).includes(PLANTED));
  } finally {
    await stdio.close();
  }
});

test('resources: the OpenAPI document and a repository\'s traces, scoped as their routes', async () => {
  const client = await connect(readOnlyKey);
  try {
    const { resources } = await client.listResources();
    assert.ok(resources.some((r) => r.uri === 'switchboard://openapi.json'));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.equal(resourceTemplates.map((t) => t.uriTemplate).sort(), ['switchboard://traces/{repo}', 'switchboard://traces/{repo}/{name}']);
    const openapi = JSON.parse(((await client.readResource({ uri: 'switchboard://openapi.json' })).contents[0] as any).text);
    assert.ok(openapi.paths['/fax/prepare'] && openapi.paths['/mcp']);
    // The answers above wrote traces.
    const listing = JSON.parse(((await client.readResource({ uri: 'switchboard://traces/billing' })).contents[0] as any).text);
    assert.is(listing.repo, 'billing');
    assert.ok(listing.traces.length > 0, JSON.stringify(listing));
    const one = JSON.parse(((await client.readResource({ uri: listing.traces[0].uri })).contents[0] as any).text);
    assert.ok(Array.isArray(one.events) && one.question, JSON.stringify(one).slice(0, 300));
    const latest = JSON.parse(((await client.readResource({ uri: 'switchboard://traces/billing/latest' })).contents[0] as any).text);
    assert.is(latest.id, one.id);
    assert.not.ok(JSON.stringify(one).includes(PLANTED), 'a trace read over MCP is redacted too');
    assert.match(await readError(client, { uri: 'switchboard://traces/billing/19990101T000000Z_00000000.json' }), /trace_not_found/);
    assert.match(await readError(client, { uri: 'switchboard://traces/no-such-repo' }), /repository|not found/i);
  } finally {
    await client.close();
  }
  const noSearch = await connect(sendKey);
  try {
    assert.match(await readError(noSearch, { uri: 'switchboard://traces/billing' }), /insufficient_scope/);
  } finally {
    await noSearch.close();
  }
});

test('an inbound answer is masked like the others: from and to at any depth, ids and other fields untouched', () => {
  const answer = { items: [{ id: 'in_15551234567', from: '+15551234567', to: '+15557654321', pages: 2, mailbox: null }], next_cursor: null };
  const result = toolResult(answer);
  assert.equal(result.structuredContent, { items: [{ id: 'in_15551234567', from: '***4567', to: '***4321', pages: 2, mailbox: null }], next_cursor: null });
  assert.not.ok(result.content[0]!.type === 'text' && /5551234567|5557654321/.test(result.content[0]!.text.replace('in_15551234567', '')));
  assert.is(answer.items[0]!.from, '+15551234567', 'the value given is not changed');
});

test.run();
