import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { maskNumbers } from 'switchboard/sdk';

test('a number in a provider text is shown as *** and its last four digits, as admin views show "to"', () => {
  assert.is(maskNumbers('fatal: Line busy at +19998887776601'), 'fatal: Line busy at ***6601');
  assert.is(maskNumbers('no answer from 15551234567'), 'no answer from ***4567');
});

test('numbers written with separators are masked whole', () => {
  assert.is(maskNumbers('dial +1 (555) 123-4567 failed'), 'dial ***4567 failed');
  assert.is(maskNumbers('dial 555.123.4567 failed'), 'dial ***4567 failed');
  assert.is(maskNumbers('to +44 20 7946 0123'), 'to ***0123');
});

test('a bracketed code after a number stays readable', () => {
  assert.is(maskNumbers('fatal: Line busy at +19998887776601 (15003)'), 'fatal: Line busy at ***6601 (15003)');
});

test('every number of a text is masked, the shortest dialable one (6 digits) too', () => {
  assert.is(maskNumbers('from +15550001111 to 123456'), 'from ***1111 to ***3456');
});

test('short digit runs, dates and IPv4 addresses stay readable', () => {
  const text = 'HTTP 503 after 3 attempts (code 15002) on 2026-11-23 04:05:06 from 127.0.0.1:5038 in 30000 ms';
  assert.is(maskNumbers(text), text);
});

test('masking is idempotent: a masked text is unchanged', () => {
  const once = maskNumbers('busy at +19998887776601 and 5551234567');
  assert.is(maskNumbers(once), once);
  assert.not.match(once, /\d{5,}/);
});

test('ids stay whole: UUIDs and hex digests are never masked, a number beside them still is', () => {
  const uuid = '89547b76-1e02-4367-9a3d-3678d42c01f5';
  assert.is(maskNumbers(`job ${uuid} failed`), `job ${uuid} failed`);
  assert.is(maskNumbers('commit 3678d4201f5a9b1234567 built'), 'commit 3678d4201f5a9b1234567 built');
  assert.is(maskNumbers(`job ${uuid} to +15551234567 failed`), `job ${uuid} to ***4567 failed`);
  assert.is(maskNumbers(`{"id":"00000000-0000-4000-8000-000000000001","to":"15551234567"}`), `{"id":"00000000-0000-4000-8000-000000000001","to":"***4567"}`);
});

test.run();
