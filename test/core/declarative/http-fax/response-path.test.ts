import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseResponsePath, readResponsePath } from '../../../../core/declarative/http-fax/index.js';

const answer = { data: { id: 12, tags: ['a', 'b'] }, faxes: [{ status: 'sent' }, { status: 'queued' }], 'odd-key': { 'x_y': true } };

test('dotted keys and [n] indexes walk objects and arrays', () => {
  assert.is(readResponsePath(answer, 'data.id'), 12);
  assert.is(readResponsePath(answer, 'faxes[1].status'), 'queued');
  assert.is(readResponsePath(answer, 'data.tags[0]'), 'a');
  assert.is(readResponsePath(answer, 'odd-key.x_y'), true);
  assert.is(readResponsePath([{ sid: 's' }], '[0].sid'), 's');
});

test('a missing step, a key on an array or an index on an object gives undefined', () => {
  assert.is(readResponsePath(answer, 'data.missing'), undefined);
  assert.is(readResponsePath(answer, 'faxes[5].status'), undefined);
  assert.is(readResponsePath(answer, 'faxes.status'), undefined);
  assert.is(readResponsePath(answer, 'data[0]'), undefined);
  assert.is(readResponsePath('text', 'length'), undefined, 'properties of non-objects are not read');
  assert.is(readResponsePath({}, 'constructor'), undefined, 'inherited properties are not read');
});

test('the steps of a path', () => {
  assert.equal(parseResponsePath('faxes[0].status'), ['faxes', 0, 'status']);
  assert.equal(parseResponsePath('[2][0]'), [2, 0]);
  assert.throws(() => parseResponsePath('a..b'));
  assert.throws(() => parseResponsePath('.a'));
});

test.run();
