import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SecretSeal, SecretsKeyError } from '../../../../host/platform/secrets/secret-seal.js';

const K1 = 'first-key-of-at-least-thirty-two-characters';
const K2 = 'second-key-of-at-least-thirty-two-characters';

test('a sealed value opens with its key and shows nothing of the secret; each seal differs', () => {
  const seal = new SecretSeal(K1);
  const a = seal.seal('whsec_abc');
  const b = seal.seal('whsec_abc');
  assert.ok(SecretSeal.isSealed(a));
  assert.not.ok(a.includes('whsec'));
  assert.is.not(a, b, 'a fresh IV per value');
  assert.is(seal.open(a), 'whsec_abc');
  assert.is(new SecretSeal(K1).open(b), 'whsec_abc', 'another process with the same key opens it');
});

test('without a key values pass as they are; a plain stored value opens as itself', () => {
  const none = new SecretSeal(undefined);
  assert.not.ok(none.sealing);
  assert.is(none.seal('user:token'), 'user:token');
  assert.is(new SecretSeal(K1).open('user:token'), 'user:token');
});

test('a value sealed with another key, or with a key not given, is refused naming what is needed', () => {
  const sealed = new SecretSeal(K1).seal('hunter2-token');
  assert.throws(() => new SecretSeal(K2).open(sealed), (err: Error) => err instanceof SecretsKeyError && /SECRETS_KEY_PREVIOUS/.test(err.message) && !err.message.includes('hunter2'));
  assert.throws(() => new SecretSeal(undefined).open(sealed), (err: Error) => err instanceof SecretsKeyError && /SECRETS_KEY is not set/.test(err.message));
});

test('an altered or truncated sealed value is refused, not opened to garbage', () => {
  const seal = new SecretSeal(K1);
  const sealed = seal.seal('a credential');
  const last = sealed.at(-2) === 'A' ? 'B' : 'A';
  const altered = `${sealed.slice(0, -2)}${last}${sealed.at(-1)}`;
  assert.throws(() => seal.open(altered), /altered/);
  assert.throws(() => seal.open(sealed.slice(0, sealed.lastIndexOf(':') + 8)), /truncated/);
});

test('reseal: plain values are sealed once a key is set; values under the previous key move to the new one; with only the previous key they are opened for good', () => {
  const one = new SecretSeal(K1);
  const sealedOne = one.reseal('plain')!;
  assert.ok(SecretSeal.isSealed(sealedOne));
  assert.is(one.reseal(sealedOne), undefined, 'already under the current key: left as it is');
  const rotated = new SecretSeal(K2, K1);
  const sealedTwo = rotated.reseal(sealedOne)!;
  assert.is(new SecretSeal(K2).open(sealedTwo), 'plain');
  assert.throws(() => one.open(sealedTwo), (err: Error) => err instanceof SecretsKeyError);
  assert.is(new SecretSeal(undefined, K2).reseal(sealedTwo), 'plain');
  assert.is(new SecretSeal(undefined).reseal('plain'), undefined);
});

test.run();
