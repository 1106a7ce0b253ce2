import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isLoopbackUrl } from '../../../../../host/surfaces/workbench/status/dev-status.js';

test('the dev server is probed only on this machine: loopback literals and localhost, never a name that starts with 127.', () => {
  for (const ok of ['http://127.0.0.1:5173', 'http://127.1:5173', 'http://2130706433:5173', 'http://[::1]:5173', 'http://[::ffff:127.0.0.1]:5173', 'http://localhost:5173']) {
    assert.ok(isLoopbackUrl(new URL(ok)), ok);
  }
  for (const no of ['http://127.evil.example:5173', 'http://127.0.0.1.evil.example/', 'http://localhost.evil.example/', 'http://10.0.0.1:5173', 'http://[::2]/']) {
    assert.not.ok(isLoopbackUrl(new URL(no)), no);
  }
});

test.run();
