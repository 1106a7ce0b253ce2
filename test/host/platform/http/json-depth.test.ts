import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { exceedsJsonDepth, JsonDepthScan } from '../../../../host/platform/http/json-depth.js';

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

test('a 16 MB document in a JSON-RPC message is one string, whatever it holds', () => {
  const big = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: { document_base64: '[{'.repeat(8 * 1024 * 1024) } } }));
  assert.is(exceedsJsonDepth(big, 4), false);
  assert.is(exceedsJsonDepth(Buffer.concat([big.subarray(0, big.length - 3), Buffer.from(',"x":[[1]]}}}')]), 4), true);
});

test('fed in pieces, the scan gives the answer of the whole, wherever the cuts fall', () => {
  const texts = [JSON.stringify({ a: 'x\\"[[[[', b: [[[1]]], c: '\\\\', d: [[[[2]]]] }), JSON.stringify({ s: '"\\'.repeat(50), n: [[[[[[0]]]]]] }), nested(7)];
  for (const text of texts) {
    const bytes = Buffer.from(text);
    for (const limit of [3, 4, 5, 6, 7]) {
      const whole = exceedsJsonDepth(bytes, limit);
      for (let cut = 1; cut < bytes.length; cut++) {
        const scan = new JsonDepthScan(limit);
        const answer = scan.feed(bytes.subarray(0, cut)) || scan.feed(bytes.subarray(cut));
        assert.is(answer, whole, `${text} at ${limit}, cut at ${cut}`);
      }
    }
  }
});

test.run();
