import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureConsoleBuilt } from '../support/browser.js';
import { ROOT } from '../support/gateway.js';

// The built console: under its 200 KB gzipped budget, no inline script (the CSP forbids it), and
// nothing loaded from another origin.
const dist = path.join(ROOT, 'web/dist');

test.before(() => ensureConsoleBuilt());

test('the bundle stays under 200 KB gzipped', async () => {
  const { bundleSize } = (await import(pathToFileURL(path.join(ROOT, 'host/bin/build-web.mjs')).href)) as { bundleSize(dir?: string): { raw: number; gzipped: number } };
  const { gzipped } = bundleSize(dist);
  assert.ok(gzipped > 1000, `${gzipped} bytes: the bundle was measured`);
  assert.ok(gzipped < 200 * 1024, `${(gzipped / 1024).toFixed(1)} KB gzipped`);
});

test('index.html has no inline script and every asset is local', () => {
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.ok(scripts.length > 0);
  for (const [, attrs, body] of scripts) {
    assert.match(attrs!, /\bsrc="\/assets\//);
    assert.is(body!.trim(), '');
  }
  assert.not.match(html, /\bon[a-z]+=/i);
  assert.not.match(html, /(src|href)="(https?:)?\/\//);
});

test('the scripts name no other origin to load from', () => {
  for (const file of readdirSync(path.join(dist, 'assets'))) {
    const text = readFileSync(path.join(dist, 'assets', file), 'utf8');
    // Library code may mention URLs in comments or messages; nothing is imported or fetched from them.
    assert.not.match(text, /import\s*\(?\s*["']https?:/, file);
    assert.not.match(text, /@import\s+url\(["']?https?:/, file);
  }
});

test.run();
