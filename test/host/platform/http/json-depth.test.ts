import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exceedsJsonDepth } from '../../../../host/platform/http/json-depth.js';

const deeper = (json: string, limit: number) => exceedsJsonDepth(Buffer.from(json), limit);
const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

test('nesting up to the limit passes, one level more does not', () => {
  assert.is(deeper(nested(64), 64), false);
  assert.is(deeper(nested(65), 64), true);
  assert.is(deeper(`{"a":{"b":${nested(62)}}}`, 64), false);
  assert.is(deeper(`{"a":{"b":${nested(63)}}}`, 64), true);
});

test('brackets inside strings do not count, escaped quotes do not end them', () => {
  assert.is(deeper(JSON.stringify({ text: '['.repeat(1000) }), 4), false);
  assert.is(deeper(JSON.stringify({ text: `say \\"${'{'.repeat(100)}` }), 4), false);
  assert.is(deeper(JSON.stringify({ text: 'ends in a backslash \\' , more: [[[[[1]]]]] }), 4), true);
  assert.is(deeper(JSON.stringify(['a\\', ['b', ['c']]]), 3), false);
});

test('depth is counted per branch: siblings do not add up', () => {
  assert.is(deeper(JSON.stringify(Array.from({ length: 1000 }, () => [[1]])), 3), false);
});

test('a 16 MB string is scanned quickly', () => {
  const big = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: { document_base64: 'QUJD'.repeat(4 * 1024 * 1024) } } }));
  const started = performance.now();
  assert.is(exceedsJsonDepth(big, 64), false);
  assert.ok(performance.now() - started < 1000);
});

test.run();
