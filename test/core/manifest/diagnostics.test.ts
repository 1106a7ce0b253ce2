import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MANIFEST_DIAGNOSTICS, manifestDiagnostic } from '../../../core/manifest/index.js';

test('codes are kebab-case and each has a message', () => {
  for (const [code, definition] of Object.entries(MANIFEST_DIAGNOSTICS)) {
    assert.match(code, /^[a-z]+(-[a-z]+)*$/);
    assert.ok(definition.message.length > 0);
  }
});

test('a diagnostic fills its message placeholders in order and takes its severity from the catalogue', () => {
  assert.equal(manifestDiagnostic('host-range-unmet', 'host', '0.1.0', '"^2"'), {
    severity: 'error',
    code: 'host-range-unmet',
    path: 'host',
    message: 'this host is version 0.1.0, which does not satisfy the manifest\'s host range "^2"',
  });
  assert.is(manifestDiagnostic('deprecated-plugin', 'maturity').severity, 'warning');
});

test('message arguments of any type are rendered without throwing', () => {
  const circular: Record<string, unknown> = {};
  circular.self = circular;
  for (const value of [undefined, null, 10n, Symbol('s'), () => 1, circular, 'x'.repeat(1000), { a: [1] }]) {
    const d = manifestDiagnostic('invalid-id', 'id', value);
    assert.type(d.message, 'string');
    assert.ok(d.message.length < 400);
  }
});

test.run();
