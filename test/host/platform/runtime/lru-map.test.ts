import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LruMap } from '../../../../host/platform/runtime/lru-map.js';

test('past its limit the least recently used entry goes first; reading an entry keeps it', () => {
  const map = new LruMap<string, number>(3);
  map.set('a', 1);
  map.set('b', 2);
  map.set('c', 3);
  assert.is(map.get('a'), 1, 'a is now the most recently used');
  map.set('d', 4);
  assert.equal([map.has('a'), map.has('b'), map.has('c'), map.has('d')], [true, false, true, true]);
  map.set('c', 30);
  map.set('e', 5);
  assert.equal([map.get('a'), map.get('c'), map.get('d'), map.get('e')], [undefined, 30, 4, 5], 'replacing c made it recent; a went');
  assert.is(map.size, 3);
});

test('by weight: entries go until the total fits, and a replaced value no longer counts', () => {
  const map = new LruMap<string, string>(10, (text) => text.length);
  map.set('a', 'xxxx');
  map.set('b', 'xxxx');
  map.set('a', 'x'); // 1 + 4 = 5
  map.set('c', 'xxxxx'); // 10: fits
  assert.equal([map.has('a'), map.has('b'), map.has('c')], [true, true, true]);
  map.set('d', 'xxxxxx'); // 16: b (oldest) then a go, leaving c and d (11) > 10, so c goes too
  assert.equal([map.has('a'), map.has('b'), map.has('c'), map.get('d')], [false, false, false, 'xxxxxx']);
});

test.run();
