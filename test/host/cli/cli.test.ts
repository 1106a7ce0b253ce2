import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { freePort, ROOT, startGateway, tempDir, until, type TestGateway } from '../../support/gateway.js';

const cli = path.join(ROOT, 'dist/host/cli/run.js');
const hostVersion = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// Outside the repository, as a plugin author's or operator's folder would be.
const outside = tempDir('switchboard-cli-');

// Asynchronous: a test gateway in this process must keep answering while the CLI runs.
function run(args: string[], env: Record<string, string> = {}, cwd = outside): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

test.after(() => rmSync(outside, { recursive: true, force: true }));

test('--help and <command> --help exit 0 with usage; --version prints the host version', async () => {
  const help = await run(['--help']);
  assert.is(help.code, 0, help.stderr);
  for (const command of ['start', 'index', 'search', 'keys', 'plugins', 'fax']) assert.match(help.stdout, new RegExp(`\\n  ${command} `));
  for (const command of ['start', 'index', 'search', 'keys', 'plugins', 'fax', 'eval', 'lab', 'judge-server']) {
    const own = await run([command, '--help']);
    assert.is(own.code, 0, `${command} --help: ${own.stderr}`);
    assert.match(own.stdout, new RegExp(`usage: switchboard ${command}`));
  }
  const version = await run(['--version']);
  assert.is(version.code, 0);
  assert.is(version.stdout.trim(), hostVersion);
});

test('an unknown command or a bad option exits 2 with a hint', async () => {
  const unknown = await run(['serach', 'x']);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /unknown command "serach" \(did you mean "search"\?\); switchboard --help/);
  const badOption = await run(['search', 'x', '--top-k', 'many']);
  assert.is(badOption.code, 2);
  assert.match(badOption.stderr, /--top-k needs a whole number/);
  const noArgs = await run([]);
  assert.is(noArgs.code, 2);
});

test('plugins new writes a portable folder of every kind (the SDK package as a dev dependency, no absolute path) that passes plugins lint and plugins test as generated', async () => {
  for (const kind of ['fax', 'storage', 'retrieval', 'judge', 'alert-sink']) {
    const id = `acme-${kind}`;
    const made = await run(['plugins', 'new', kind, id]);
    assert.is(made.code, 0, made.stderr);
    const dir = path.join(outside, id);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    assert.is(manifest.entry, 'dist/index.js');
    assert.match(readFileSync(path.join(dir, 'src/index.ts'), 'utf8'), /definePlugin\b[\s\S]*from '@switchboard\/sdk'/);
    assert.match(readFileSync(path.join(dir, 'src/plugin.test.ts'), 'utf8'), /from '@switchboard\/sdk\/testing'/);
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
    // No SDK tarball in the folder it ran in: the host's version range.
    assert.is(pkg.devDependencies['@switchboard/sdk'], `^${hostVersion}`);
    assert.is(pkg.dependencies, undefined, 'the SDK is never a runtime dependency');
    for (const file of ['package.json', 'tsconfig.json', 'README.md', 'src/index.ts', 'src/plugin.test.ts']) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      assert.not.ok(text.includes(ROOT) || text.includes(outside), `${file} names no absolute path`);
    }
    const lint = await run(['plugins', 'lint', 'manifest.json'], {}, dir);
    assert.is(lint.code, 0, lint.stdout + lint.stderr);
    const conformance = await run(['plugins', 'test', '.'], {}, dir);
    assert.is(conformance.code, 0, conformance.stdout + conformance.stderr);
    assert.match(conformance.stdout, new RegExp(`${id}@0.1.0: [1-9]\\d* passed, 0 failed`));
    assert.match(conformance.stdout, /^ok {3}own tests: dist\/plugin\.test\.js$/m, 'the generated node:test file runs with the host\'s switchboard/sdk/testing');
  }
  const again = await run(['plugins', 'new', 'fax', 'acme-fax']);
  assert.is(again.code, 1);
  assert.match(again.stderr, /already exists/);
  const badKind = await run(['plugins', 'new', 'printer', 'acme-printer']);
  assert.is(badKind.code, 2);
  assert.match(badKind.stderr, /unknown kind "printer"/);
});

test('gateway commands talk to SWITCHBOARD_URL with SWITCHBOARD_API_KEY and print readable lines (--json: the answer)', async () => {
  let gw: TestGateway | undefined;
  try {
    gw = await startGateway({ FAX_BACKEND: 'fax-sim' }, { watch: false });
    const gateway = gw;
    await until(() => gateway.gateway.kernel.isActive('fax', 'fax-sim'), 15000);
    const at = { SWITCHBOARD_URL: gw.url };
    const minted = await run(['keys', 'mint', 'operator', '--scopes', 'admin', '--json'], at);
    assert.is(minted.code, 0, minted.stderr);
    const { token, key_id } = JSON.parse(minted.stdout) as { token: string; key_id: string };
    const withKey = { ...at, SWITCHBOARD_API_KEY: token };

    const keys = await run(['keys', 'list'], withKey);
    assert.is(keys.code, 0, keys.stderr);
    assert.match(keys.stdout, new RegExp(`^${key_id}  operator  admin$`, 'm'));

    const plugins = await run(['plugins', 'list'], withKey);
    assert.is(plugins.code, 0, plugins.stderr);
    assert.match(plugins.stdout, /^fax-sim@\S+  fax  active$/m);

    const sent = await run(['fax', 'send', '+15551230000', path.join(ROOT, 'docs/examples/letter.pdf')], withKey);
    assert.is(sent.code, 0, sent.stderr);
    const id = /^(\S+)  /.exec(sent.stdout)![1]!;
    assert.match(sent.stdout, /follow it: switchboard fax status /);
    const status = await run(['fax', 'status', id, '--json'], withKey);
    assert.is(JSON.parse(status.stdout).id, id);

    const missing = await run(['fax', 'status', '00000000-0000-4000-8000-000000000000'], withKey);
    assert.is(missing.code, 1);
    assert.match(missing.stderr, /^switchboard: HTTP 404 fax_job_not_found: /);

    const noKey = await run(['keys', 'list'], at);
    assert.is(noKey.code, 1);
    assert.match(noKey.stderr, /HTTP 401 .*SWITCHBOARD_API_KEY/);

    const revoked = await run(['keys', 'revoke', key_id], withKey);
    assert.is(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, new RegExp(`revoked ${key_id}`));
  } finally {
    await gw?.close();
  }
});

test('without a gateway, a gateway command says where it looked and exits 1', async () => {
  const closed = await freePort(); // listened on, then closed: nothing answers there
  const down = await run(['search', 'dispatcher'], { SWITCHBOARD_URL: `http://127.0.0.1:${closed}` });
  assert.is(down.code, 1);
  assert.match(down.stderr, new RegExp(`^switchboard: no gateway answers at http://127\\.0\\.0\\.1:${closed} \\(ECONNREFUSED\\): start one with \`switchboard start\``));
});

test('something other than the gateway at SWITCHBOARD_URL: its error page is shown short, a page that is not JSON is named, exit 1', async () => {
  const other: Server = createServer((req, res) => {
    if (req.url?.startsWith('/api/search')) res.writeHead(502, { 'content-type': 'text/html' }).end(`<html>${'Bad Gateway '.repeat(40)}</html>`);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<html>a web site</html>');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(other.address() as { port: number }).port}`;
  try {
    const page = await run(['search', 'dispatcher'], { SWITCHBOARD_URL: url });
    assert.is(page.code, 1);
    assert.is(page.stderr, `switchboard: HTTP 502: ${`<html>${'Bad Gateway '.repeat(40)}`.slice(0, 200)}\n`);
    const site = await run(['plugins', 'list'], { SWITCHBOARD_URL: url });
    assert.is(site.code, 1);
    assert.is(site.stderr, `switchboard: the gateway at ${url} answered something other than JSON\n`);
  } finally {
    await new Promise((resolve) => other.close(resolve));
  }
});

test.run();
