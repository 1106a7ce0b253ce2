import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REDACTED, redactCredentials, redactCredentialsDeep } from '../../../host/mcp/credential-redaction.js';

test('lines that look like keys, tokens, private keys or passwords are masked; the others stay', () => {
  const secretLines = [
    'const API_KEY = "abc123"',
    '  password: hunter2',
    'DB_PASSWD=topsecret',
    'client_secret = "xyz123"',
    'export const token = process.env.X',
    'auth_header="Basic dXNlcjpwYXNzd29yZHBhc3N3b3Jk"',
    'curl -H "Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456"',
    'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
    'aws AKIAABCDEFGHIJKLMNOP',
    'slack xoxb-1234567890-abcdef',
    'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'DATABASE_URL=postgres://app:s3cret@db:5432/app',
    'stripe sk_live_abcdefghijklmnop1234',
  ];
  for (const line of secretLines) assert.is(redactCredentials(line), REDACTED, line);
  const plain = ['export function invoiceTotal(lines: number[]) {', '  return lines.reduce((a, b) => a + b, 0);', '// the reload queue coalesces requests', 'const tokens = text.split(" ")', 'if (token == null) return;', 'function checkPassword(input) {'];
  for (const line of plain) assert.is(redactCredentials(line), line, line);
});

test('every line of a private-key block is masked, and the lines after it are not', () => {
  const text = ['before', '-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEA', 'abcdef', '-----END RSA PRIVATE KEY-----', 'after'].join('\n');
  assert.equal(redactCredentials(text).split('\n'), ['before', REDACTED, REDACTED, REDACTED, REDACTED, 'after']);
});

test('redactCredentialsDeep masks every string of a search answer', () => {
  const answer = { results: [{ path: 'a.ts', snippet: 'ok\nconst password = "p"\nok' }], n: 3 };
  assert.equal(redactCredentialsDeep(answer), { results: [{ path: 'a.ts', snippet: `ok\n${REDACTED}\nok` }], n: 3 });
});

test.run();
