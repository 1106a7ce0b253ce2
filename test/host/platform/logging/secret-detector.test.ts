import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Writable } from 'node:stream';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REDACTED, maskSecretLines, maskSecretsDeep } from '../../../../host/platform/logging/secret-detector.js';
import { createLogger } from '../../../../host/platform/logging/logger.js';
import { TraceStore } from '../../../../host/surfaces/search/traces/trace-store.js';
import { ORDINARY_CODE, SECRET_CASES } from '../../../support/secret-corpus.js';

function assertMasked(output: string, where: string): void {
  for (const c of SECRET_CASES) for (const secret of c.secrets) assert.not.ok(output.includes(secret), `${where}: "${c.name}" leaked ${secret}`);
}

test('every case of the fake-secret corpus is masked, each in its own text', () => {
  for (const c of SECRET_CASES) {
    const out = maskSecretLines(c.text);
    for (const secret of c.secrets) assert.not.ok(out.includes(secret), `${c.name}:\n${out}`);
    assert.ok(out.includes(REDACTED), c.name);
  }
});

test('ordinary code that names credentials without holding one is left whole, line by line', () => {
  for (const line of ORDINARY_CODE.split('\n')) assert.is(maskSecretLines(line), line, line);
  assert.is(maskSecretLines(ORDINARY_CODE), ORDINARY_CODE);
});

test('lines that look like keys, tokens, private keys or passwords are masked; the others stay', () => {
  const secretLines = [
    'const API_KEY = "abc123"',
    '  password: hunter2',
    'DB_PASSWD=topsecret',
    'client_secret = "xyz123"',
    'auth_header="Basic dXNlcjpwYXNzd29yZHBhc3N3b3Jk"',
    'curl -H "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456"',
    'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    'aws AKIAABCDEFGHIJKLMNOP',
    'slack xoxb-1234567890-abcdef',
    'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'DATABASE_URL=postgres://app:s3cret@db:5432/app',
    'stripe sk_live_abcdefghijklmnop1234',
  ];
  for (const line of secretLines) assert.is(maskSecretLines(line), REDACTED, line);
});

test('a private-key block is masked from BEGIN to END, or to the end of a window that cuts it; the lines around stay', () => {
  const text = ['before', '-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA', 'abcdef', '-----END RSA PRIVATE KEY-----', 'after'].join('\n');
  assert.equal(maskSecretLines(text).split('\n'), ['before', REDACTED, REDACTED, REDACTED, REDACTED, 'after']);
  const cut = ['before', '-----BEGIN EC PRIVATE KEY-----', 'abc', 'def'].join('\n');
  assert.equal(maskSecretLines(cut).split('\n'), ['before', REDACTED, REDACTED, REDACTED]);
  const tail = ['abc', 'def', '-----END PRIVATE KEY-----', 'after'].join('\n');
  assert.equal(maskSecretLines(tail).split('\n'), [REDACTED, REDACTED, REDACTED, 'after']);
});

test('an assignment at the end of a long dotted run (minified code) is still found; the run alone is not a secret', () => {
  // The name is bounded (101 characters), which keeps the scan of such a line linear.
  const run = 'a.'.repeat(20_000);
  assert.is(maskSecretLines(`${run}password = "hunter2-correct-horse"`), REDACTED);
  assert.is(maskSecretLines(run), run);
});

test('maskSecretsDeep masks every string of an answer, secret-named fields and known values', () => {
  const answer = { results: [{ path: 'a.ts', snippet: 'ok\nconst password = "p4ss"\nok' }], n: 3, api_key: 'k', note: 'uses configured-secret-123' };
  assert.equal(maskSecretsDeep(answer, ['configured-secret-123']), { results: [{ path: 'a.ts', snippet: `ok\n${REDACTED}\nok` }], n: 3, api_key: '***', note: 'uses ***' });
});

test('a log line: the logger masks the corpus in its message and in its fields', () => {
  const lines: string[] = [];
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const logger = createLogger('info', sink);
  for (const c of SECRET_CASES) {
    logger.info(c.text);
    logger.info({ detail: c.text, nested: { body: c.text } }, 'provider answered');
    logger.warn(new Error(c.text));
  }
  assert.is(lines.length, SECRET_CASES.length * 3);
  assertMasked(lines.join('\n'), 'log');
  logger.info(ORDINARY_CODE);
  assert.not.ok(lines.at(-1)!.includes(REDACTED), 'ordinary text is logged unmasked');
});

test('a trace: the corpus in a question, events and answers never reaches the file', async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-secret-traces-'));
  try {
    const store = new TraceStore({ dataDir, retention: () => 10, secretValues: () => [] });
    const trace = store.start('r', SECRET_CASES[0]!.text);
    for (const c of SECRET_CASES) trace.event('search.results', { snippet: c.text, chunks: [{ text: c.text }] });
    const file = (await trace.finish())!;
    const text = readFileSync(path.join(dataDir, file), 'utf8');
    assertMasked(text, 'trace');
    assert.ok(text.includes(REDACTED));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
