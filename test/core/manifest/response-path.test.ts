import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CONTRACT_VERSIONS } from '../../../core/sdk/index.js';
import { responsePathSteps, validateManifest, valueAtPath } from '../../../core/manifest/index.js';
import { parseResponsePath } from '../../../core/declarative/http-fax/index.js';

test('one grammar: a key or [n] first, then .key or [n]', () => {
  assert.equal(responsePathSteps('data.id'), ['data', 'id']);
  assert.equal(responsePathSteps('faxes[0].status'), ['faxes', 0, 'status']);
  assert.equal(responsePathSteps('[0].sid'), [0, 'sid']);
  assert.equal(responsePathSteps('[2][0]'), [2, 0]);
  for (const bad of ['', '[0]a', 'a[0]b', '.a', 'a.', 'a..b', 'a.[0]', 'a b', '[x]', 'a]']) assert.is(responsePathSteps(bad), null, bad);
});

test('validator and runtime refuse the same paths ([0]a included)', () => {
  for (const path of ['[0]a', 'faxes[0]status', 'data..id', 'ok.path', '[1].x']) {
    const raw = {
      manifestVersion: 1, id: 'paths', name: 'n', version: '1.0.0', description: '', author: 'a', host: '^0.1.0',
      provides: [{ kind: 'fax', contract: 'fax@^1' }], egress: ['127.0.0.1'],
      http: { actions: { send: { method: 'POST', url: 'http://127.0.0.1/f', response: { job_id: path } } }, status_map: {} },
    };
    const validatorAccepts = validateManifest(raw, { hostVersion: '0.1.0', contracts: CONTRACT_VERSIONS }).manifest !== undefined;
    let runtimeAccepts = true;
    try {
      parseResponsePath(path);
    } catch {
      runtimeAccepts = false;
    }
    assert.is(runtimeAccepts, validatorAccepts, path);
  }
});

test('values are read only along own properties, indexes only on arrays', () => {
  assert.is(valueAtPath({ a: [{ b: 1 }] }, ['a', 0, 'b']), 1);
  assert.is(valueAtPath({ a: { 0: 'x' } }, ['a', 0]), undefined);
  assert.is(valueAtPath({}, ['constructor']), undefined);
});

test.run();
