import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { lookup, templateValues } from '../../../../core/declarative/http-fax/template-values.js';

test('a placeholder reads own values only: names Object.prototype answers to are unset', () => {
  const values = templateValues({ api_key: 'k' }, ['api_key'], { to: '+15551234567' });
  assert.is(lookup(values, 'to'), '+15551234567');
  assert.is(lookup(values, 'settings.api_key'), 'k');
  for (const name of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
    assert.is(lookup(values, `settings.${name}`), undefined, `settings.${name}`);
    assert.is(lookup(values, `secrets.${name}`), undefined, `secrets.${name}`);
    assert.is(lookup(values, name), undefined, name);
  }
});

test.run();
