import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDir, startGateway, tempDir } from '../../../../support/gateway.js';

const WARNING = /REPO names no repository of REPOS/;

test('a REPOS without the default repository is named at start, and REPO set to one of its keys is quiet', async () => {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'billing'));
  try {
    const unset = await startGateway({ REPOS: JSON.stringify({ billing: path.join(dir, 'billing') }) });
    try {
      const line = unset.logs.find((l) => WARNING.test(l));
      assert.ok(line, 'a warning at start');
      assert.match(line!, /"configured":\["billing"\]/);
      const res = await fetch(`${unset.url}/api/search?q=x`);
      assert.is(res.status, 404, 'as the warning says');
      assert.is(((await res.json()) as { code: string }).code, 'repository_not_found');
    } finally {
      await unset.close();
    }
    const set = await startGateway({ REPOS: JSON.stringify({ billing: path.join(dir, 'billing') }), REPO: 'billing' });
    try {
      assert.not.ok(set.logs.some((l) => WARNING.test(l)));
    } finally {
      await set.close();
    }
  } finally {
    removeDir(dir);
  }
});

test.run();
