import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { identifierTerms, indexTerms, pathTerms, queryTerms, stem, stemmedTermSet, textTerms } from '../../../../core/sdk/retrieval/index.js';

test('identifiers are split at camelCase, snake_case and kebab-case and kept whole', () => {
  assert.equal(identifierTerms('parseHttpHeader'), ['parse', 'http', 'header', 'parsehttpheader']);
  assert.equal(identifierTerms('parse_http_header'), ['parse', 'http', 'header', 'parsehttpheader']);
  assert.equal(identifierTerms('reload-queue'), ['reload', 'queue', 'reloadqueue']);
  assert.equal(identifierTerms('HTTPServer'), ['http', 'server', 'httpserver']);
  assert.equal(identifierTerms('utf8Decode'), ['utf', '8', 'decode', 'utf8decode']);
  assert.equal(identifierTerms('queue'), ['queue'], 'a one-part word is not repeated whole');
});

test('text terms keep duplicates and order, skip words over 64 characters, and stop at the limit', () => {
  assert.equal(textTerms('queue.push(queue)'), ['queue', 'push', 'queue']);
  assert.equal(textTerms(`hash ${'a'.repeat(65)} readFile`), ['hash', 'read', 'file', 'readfile']);
  assert.equal(textTerms('one two three four', 2), ['one', 'two']);
});

test('path terms are every directory, the file name split and whole, and the extension', () => {
  assert.equal(pathTerms('core/kernel/reload-queue.ts'), ['core', 'kernel', 'reload', 'queue', 'reloadqueue', 'ts']);
  assert.equal(pathTerms('docs/sdk.guide.md'), ['docs', 'sdk', 'guide', 'md']);
  assert.equal(pathTerms('.github/Makefile'), ['github', 'makefile']);
  assert.equal(pathTerms('docs/README.MD'), ['docs', 'readme', 'md']);
});

test('query terms drop lone stop words and one-letter words, never parts of identifiers', () => {
  assert.equal(queryTerms('where is the reload queue coalesced?'), ['reload', 'queue', 'coalesced']);
  assert.equal(queryTerms('which file calls readFileSync'), ['calls', 'read', 'file', 'sync', 'readfilesync']);
  assert.equal(queryTerms('which file calls fileReader'), ['calls', 'file', 'reader', 'filereader'], 'an identifier that starts with a stop word');
  assert.equal(queryTerms("the logger's level"), ['logger', 'level']);
  assert.equal(queryTerms('where is it'), ['where', 'is', 'it'], 'a query of stop words only keeps them');
  assert.equal(queryTerms('queue Queue QUEUE'), ['queue'], 'distinct');
  assert.equal(queryTerms('alpha beta gamma delta', 2), ['alpha', 'beta']);
});

test('stemming makes the forms of a word meet and leaves short words alone', () => {
  assert.is(stem('coalesced'), 'coalesc');
  assert.is(stem('coalescing'), 'coalesc');
  assert.is(stem('coalesce'), 'coalesc');
  assert.is(stem('classes'), stem('class'));
  assert.is(stem('policies'), 'policy');
  assert.is(stem('addresses'), 'address');
  assert.is(stem('uses'), 'us');
  assert.is(stem('bus'), 'bus');
});

test('index terms are code-aware and stemmed with duplicates kept; the term set is distinct', () => {
  assert.is(indexTerms('parseHeaders(headers)'), 'pars header parseheader header');
  assert.is(indexTerms(`${'x'.repeat(65)} queues`), 'queu');
  assert.equal([...stemmedTermSet('parseHeaders(headers)')], ['pars', 'header', 'parseheader']);
});

test.run();
