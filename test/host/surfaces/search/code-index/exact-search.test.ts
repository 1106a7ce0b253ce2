import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { openCodeIndexDb } from '../../../../../host/surfaces/search/code-index/code-index-db.js';
import { CodeIndexReader } from '../../../../../host/surfaces/search/code-index/code-index-reader.js';
import { exactSearch } from '../../../../../host/surfaces/search/code-index/exact-search.js';
import { parseSearchQuery } from '../../../../../host/surfaces/search/query/search-query.js';
import { removeDir, tempDir } from '../../../../support/gateway.js';

// Line, column and UTF-8 byte offset of every listed match, against the obvious computation
// (the bytes of everything before the match), in text with two- three- and four-byte characters
// before, between and on the lines of the matches.
test('every match of a file is reported at its line, column and UTF-8 byte offset', () => {
  const lines = ['// ünï tëst', 'const née = "Store€";', '', '😀 class FooStore {}', 'x'.repeat(40) + ' class ÉStore ', '\tclass BarStore extends 日本Store {}', 'end'];
  const content = lines.join('\n');
  const dir = tempDir('exact-search-');
  const file = path.join(dir, 'index.sqlite');
  const db = openCodeIndexDb(file);
  db.prepare('INSERT INTO files (id, path, language, hash, size, content) VALUES (1, ?, ?, ?, ?, ?)').run('src/a.ts', 'typescript', 'h', Buffer.byteLength(content), content);
  db.prepare('INSERT INTO files_trigrams (rowid, content) VALUES (1, ?)').run(content);
  const reader = CodeIndexReader.open(file)!;
  try {
    // Each query, how many matches, and what every matched text must be.
    const cases = [
      ['"store"', 5, /^store$/i],
      ['/class \\w*Store\\b/', 2, /^class \w*Store$/],
      ['/Store\\W/', 5, /^Store\W$/],
    ] as const;
    for (const [q, count, shape] of cases) {
      const { files } = exactSearch(reader, parseSearchQuery(q), { maxFiles: 10, maxMatchesPerFile: 100, budgetMs: 10_000 });
      const matches = files[0]!.matches;
      assert.is(matches.length, count, q);
      for (const m of matches) {
        assert.is(m.text, lines[m.line - 1], `${q} line ${m.line}`);
        const index = lines.slice(0, m.line - 1).reduce((n, l) => n + l.length + 1, 0) + m.column - 1;
        assert.is(m.byte_offset, Buffer.byteLength(content.slice(0, index)), `${q} line ${m.line}`);
        const matched = Buffer.from(content).subarray(m.byte_offset, m.byte_offset + m.byte_length).toString();
        assert.ok(shape.test(matched), `${q} line ${m.line}: ${matched}`);
        assert.ok(content.startsWith(matched, index), `${q} line ${m.line}: the column points at the match`);
      }
      assert.equal(matches.map((m) => m.line), [...matches.map((m) => m.line)].sort((a, b) => a - b), `${q}: in order`);
    }
  } finally {
    reader.close();
    db.close();
    removeDir(dir);
  }
});

test.run();
