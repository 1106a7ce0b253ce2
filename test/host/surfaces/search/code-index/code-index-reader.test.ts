import { test } from 'uvu';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { openCodeIndexDb } from '../../../../../host/surfaces/search/code-index/code-index-db.js';
import { CodeIndexReader } from '../../../../../host/surfaces/search/code-index/code-index-reader.js';
import { removeDir, tempDir } from '../../../../support/gateway.js';

// Exact searches keep the contents they read in memory for the next query; a run that commits new
// content makes what was kept unreachable, so a search never confirms on content that changed.

test("a file's content read in a search is the committed one, before and after another connection changes it", () => {
  const dir = tempDir('code-index-reader-');
  const file = path.join(dir, 'index.sqlite');
  const writer = openCodeIndexDb(file);
  const put = writer.prepare('INSERT INTO files (id, path, language, hash, size, content) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET content = excluded.content, hash = excluded.hash, size = excluded.size');
  put.run(1, 'a.ts', 'typescript', 'h1', 9, 'const a=1');
  put.run(2, 'b.ts', 'typescript', 'h2', 9, 'const b=2');
  const reader = CodeIndexReader.open(file)!;
  try {
    const both = () => reader.read(() => [reader.content(1), reader.content(2)]);
    assert.equal(both(), ['const a=1', 'const b=2']);
    assert.equal(both(), ['const a=1', 'const b=2'], 'read again (from memory)');
    put.run(1, 'a.ts', 'typescript', 'h3', 11, 'const a=100');
    assert.equal(both(), ['const a=100', 'const b=2'], 'the committed change is seen');
    writer.prepare('DELETE FROM files WHERE id = 2').run();
    assert.equal(both(), ['const a=100', ''], 'a file gone from the index reads empty');
    // Outside a search (no read transaction) nothing is kept, and the answer is the same.
    assert.is(reader.content(1), 'const a=100');
  } finally {
    reader.close();
    writer.close();
    removeDir(dir);
  }
});

test.run();
