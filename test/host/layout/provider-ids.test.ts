import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// dist/test/host/layout -> the package root
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The ids of the built-in plugins, read from the manifests they ship as. */
function builtInIds(): string[] {
  const dir = path.join(root, 'manifests');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => (JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { id: string }).id);
}

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The code of a TypeScript file with its comments blanked out (strings, template literals and
 * regular expressions kept), so a comment may name a provider but code may not.
 */
function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  let previous = '';
  const regexMayStart = () => previous === '' || /[(,=:[!&|?{};+\-*%<>~^]$/.test(previous) || /\b(return|typeof|case|in|of)$/.test(previous);
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      continue;
    }
    if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
      continue;
    }
    if (c === "'" || c === '"' || c === '`' || (c === '/' && regexMayStart())) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length) {
        const d = text[j]!;
        if (d === '\\') j += 2;
        else if (c === '/' && d === '[') (inClass = true), j++;
        else if (c === '/' && d === ']') (inClass = false), j++;
        else if (d === c && !inClass) break;
        else if (c !== '`' && d === '\n') break;
        else j++;
      }
      out += text.slice(i, j + 1);
      previous = c;
      i = j + 1;
      continue;
    }
    out += c;
    if (!/\s/.test(c)) previous = (previous + c).slice(-8);
    i++;
  }
  return out;
}

/**
 * Names in host/ that are equal to a built-in plugin id but are not one, each with its reason.
 * Anything else naming a built-in plugin in host/ code is a seam leak.
 */
const NOT_PLUGIN_REFERENCES: Array<{ file: string; id: string; why: string }> = [
  { file: 'host/platform/config/model/docker.ts', id: 'judge-selfhosted', why: 'the compose service key of the judge server container, not the plugin' },
  {
    file: 'host/platform/db/migrations.ts',
    id: 'sip',
    why: 'migration 0004 renamed stored rows to the id the plugin had then; a migration that ran must keep its meaning',
  },
  {
    file: 'host/platform/db/migrations.ts',
    id: 'alert-webhook',
    why: 'migration 0014 moved webhook: outbox rows to the instances of the default alert sink the package had then; a migration that ran must keep its meaning',
  },
];

test('no built-in plugin id appears in host/ code (comments aside): seams are chosen by plugin id from manifests', () => {
  const ids = builtInIds();
  assert.ok(ids.length >= 12, 'the built-in manifests are found');
  const found: string[] = [];
  for (const file of sourcesUnder(path.join(root, 'host'))) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    const code = withoutComments(readFileSync(file, 'utf8'));
    for (const id of ids) {
      const pattern = new RegExp(`(?<![A-Za-z0-9_$-])${id.replace(/-/g, '\\-')}(?![A-Za-z0-9_$-])`, 'g');
      const hits = code.match(pattern)?.length ?? 0;
      if (hits && !NOT_PLUGIN_REFERENCES.some((e) => e.file === relative && e.id === id)) found.push(`${relative}: ${id} (${hits}x)`);
    }
  }
  assert.equal(found, []);
});

test('the comment stripper keeps strings and regular expressions and drops comments', () => {
  const code = withoutComments(["const a = 'providera'; // providerb", '/* sip */ const b = /x\\/y/g.test(`pbxb`);', 'const c = 1 / 2; // d'].join('\n'));
  assert.ok(code.includes("'providera'"));
  assert.ok(code.includes('`pbxb`'));
  assert.ok(code.includes('/x\\/y/g'));
  assert.not.ok(code.includes('providerb'));
  assert.not.ok(code.includes('sip'));
  assert.not.ok(code.includes(' d'));
});

test('every exception still names something that is there, so the list cannot go stale', () => {
  for (const e of NOT_PLUGIN_REFERENCES) {
    const code = withoutComments(readFileSync(path.join(root, e.file), 'utf8'));
    assert.ok(new RegExp(`(?<![A-Za-z0-9_$-])${e.id}(?![A-Za-z0-9_$-])`).test(code), `${e.file} still holds ${e.id}`);
  }
});

test.run();
