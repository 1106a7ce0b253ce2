import { createHmac } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { basicAuthMatches, hmacHexMatches, sameSecret, WebhookRejectedError } from '../../../core/sdk/index.js';

const body = Buffer.from('{"fax":{"id":1}}');
const hex = (secret: string, algorithm = 'sha256') => createHmac(algorithm, secret).update(body).digest('hex');
const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;

test('sameSecret: equal strings only, whatever the lengths', () => {
  assert.ok(sameSecret('s3cret', 's3cret'));
  assert.not.ok(sameSecret('s3cret', 's3cre'));
  assert.not.ok(sameSecret('', 's3cret'));
  assert.not.ok(sameSecret('S3CRET', 's3cret'));
});

test('hmacHexMatches: the spec rule (raw body, lowercase hex, header trimmed and lowercased)', () => {
  assert.ok(hmacHexMatches(body, 'k', hex('k')));
  assert.ok(hmacHexMatches(body, 'k', `  ${hex('k').toUpperCase()} `));
  assert.not.ok(hmacHexMatches(body, 'k', hex('other')));
  assert.not.ok(hmacHexMatches(Buffer.from('{"fax":{"id":2}}'), 'k', hex('k')), 'another body');
  assert.not.ok(hmacHexMatches(body, 'k', undefined));
  assert.not.ok(hmacHexMatches(body, 'k', hex('k').slice(0, 10)));
  assert.ok(hmacHexMatches(body, 'k', hex('k', 'sha1'), 'sha1'));
  assert.not.ok(hmacHexMatches(body, 'k', hex('k', 'sha1')), 'sha1 digest is not the sha256 one');
});

test('basicAuthMatches: both parts must match; malformed headers never do', () => {
  assert.ok(basicAuthMatches(basic('u', 'p:w'), 'u', 'p:w'));
  assert.ok(basicAuthMatches(`basic ${Buffer.from('u:p').toString('base64')}`, 'u', 'p'));
  assert.not.ok(basicAuthMatches(basic('u', 'x'), 'u', 'p'));
  assert.not.ok(basicAuthMatches(basic('x', 'p'), 'u', 'p'));
  assert.not.ok(basicAuthMatches(`Basic ${Buffer.from('up').toString('base64')}`, 'u', 'p'), 'no colon');
  assert.not.ok(basicAuthMatches(`Bearer ${Buffer.from('u:p').toString('base64')}`, 'u', 'p'));
  assert.not.ok(basicAuthMatches(undefined, 'u', 'p'));
  assert.not.ok(basicAuthMatches(basic('', ''), 'u', 'p'));
});

test('WebhookRejectedError carries status and reason', () => {
  const err = new WebhookRejectedError(503, 'no_secret', 'not configured');
  assert.is(err.status, 503);
  assert.is(err.reason, 'no_secret');
  assert.is(err.code, 'webhook_rejected');
  assert.is(err.name, 'WebhookRejectedError');
});

test.run();
