import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EgressDeniedError, NotAcceptedError, RejectedError, UncertainOutcomeError } from 'switchboard/sdk';
import { answerFailure, retryAfterMs, transportFailure } from 'switchboard/sdk/fax';

const subject = { provider: 'provider X', credentials: 'apiKey' };

test('a connection never made is NotAccepted; a timeout or a later loss is Uncertain', () => {
  const refused = transportFailure(new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }), 100, subject);
  assert.instance(refused, NotAcceptedError);
  assert.match(refused.message, /provider X unreachable \(ECONNREFUSED\)/);
  const nested = transportFailure({ errors: [{ code: 'ENOTFOUND' }] }, 100, subject);
  assert.instance(nested, NotAcceptedError);
  const timeout = transportFailure(new DOMException('slow', 'TimeoutError'), 250, subject);
  assert.instance(timeout, UncertainOutcomeError);
  assert.match(timeout.message, /within 250 ms; the fax may have been accepted/);
  assert.match(transportFailure(new DOMException('slow', 'TimeoutError'), 250, { ...subject, action: 'status' }).message, /the status request may have been accepted/);
  assert.instance(transportFailure(new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } }), 100, subject), UncertainOutcomeError);
});

test('an egress refusal is passed on; a redirect loop is refused for good', () => {
  const denied = new EgressDeniedError('evil.example');
  assert.is(transportFailure(denied, 100, subject), denied);
  assert.instance(transportFailure(new Error('too many redirects fetching a.example'), 100, subject), RejectedError);
});

test('answers: 401/403 credentials, 408/429/5xx not accepted, 504 uncertain, other 4xx rejected, 1xx/3xx uncertain', () => {
  const credentials = answerFailure(403, { message: 'bad key' }, subject);
  assert.instance(credentials, RejectedError);
  assert.match(credentials.message, /refused the credentials \(HTTP 403\); check apiKey: bad key/);
  for (const status of [408, 429, 500, 503]) assert.instance(answerFailure(status, {}, subject), NotAcceptedError, String(status));
  assert.instance(answerFailure(504, {}, subject), UncertainOutcomeError);
  assert.instance(answerFailure(422, {}, subject), RejectedError);
  assert.instance(answerFailure(302, {}, subject), UncertainOutcomeError);
  assert.is((answerFailure(429, { retryAfter: '7' }, subject) as NotAcceptedError).retryAfterMs, 7000);
});

test('a number the provider echoes never reaches the message', () => {
  const err = answerFailure(400, { message: 'cannot fax +1 (555) 123-4567 today' }, subject);
  assert.not.match(err.message, /555/);
  assert.match(err.message, /cannot fax \[number\] today/);
});

test('Retry-After as seconds or an HTTP date', () => {
  assert.is(retryAfterMs('3'), 3000);
  assert.is(retryAfterMs(null), undefined);
  assert.is(retryAfterMs('soon'), undefined);
  const inFuture = retryAfterMs(new Date(Date.now() + 60_000).toUTCString())!;
  assert.ok(inFuture > 50_000 && inFuture <= 60_000, String(inFuture));
  assert.is(retryAfterMs(new Date(Date.now() - 60_000).toUTCString()), 0);
});

test.run();
