import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../support/gateway.js';
import { readRepositoryFile, repositoryMarkdown, withoutFences } from './repository-markdown.js';

// A comment or a doc's code span that names a repository path names one that exists, so a
// reader following it after a move lands somewhere. dist/ paths and placeholders (<id>, *) are not checked.

const TOP = ['core', 'host', 'plugins', 'docs', 'test', 'manifests', 'registry', 'bench'];
const CITED = new RegExp(`(?<![\\w./@$-])(?:${TOP.join('|')})/[\\w.-]+(?:/[\\w.-]+)*/?`, 'g');

/** The comments of a TypeScript or JavaScript source, with the line each starts on (strings, templates and regex literals skipped). */
export function commentsOf(source: string): { text: string; line: number }[] {
  const out: { text: string; line: number }[] = [];
  const braces: number[] = []; // open `${` depths of the templates we are inside
  let depth = 0;
  let i = 0;
  let lastSignificant = '';
  const lineAt = (index: number) => source.slice(0, index).split('\n').length;
  const skipString = (quote: string) => {
    for (i++; i < source.length && source[i] !== quote && source[i] !== '\n'; i++) if (source[i] === '\\') i++;
    i++;
  };
  const skipTemplate = () => {
    for (i++; i < source.length; i++) {
      if (source[i] === '\\') i++;
      else if (source[i] === '`') { i++; return; }
      else if (source[i] === '$' && source[i + 1] === '{') { braces.push(depth); depth++; i += 2; return; }
    }
  };
  while (i < source.length) {
    const c = source[i]!;
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      out.push({ text: source.slice(i + 2, end < 0 ? undefined : end), line: lineAt(i) });
      i = end < 0 ? source.length : end;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      out.push({ text: source.slice(i + 2, end < 0 ? undefined : end), line: lineAt(i) });
      i = end < 0 ? source.length : end + 2;
    } else if (c === '/' && (lastSignificant === '' || /[(,=:[!&|?{};+\-*%<>~^]/.test(lastSignificant) || /\b(?:return|typeof|case|in|of)$/.test(source.slice(Math.max(0, i - 8), i).trimEnd()))) {
      let inClass = false;
      for (i++; i < source.length && source[i] !== '\n'; i++) {
        if (source[i] === '\\') i++;
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        else if (source[i] === '/' && !inClass) break;
      }
      i++;
      lastSignificant = 'a';
    } else if (c === "'" || c === '"') {
      skipString(c);
      lastSignificant = 'a';
    } else if (c === '`') {
      skipTemplate();
      lastSignificant = 'a';
    } else if (c === '}' && braces.length && braces[braces.length - 1] === depth - 1) {
      braces.pop();
      depth--;
      i--; // resume the template at this brace
      skipTemplate();
      lastSignificant = 'a';
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      if (!/\s/.test(c)) lastSignificant = c;
      i++;
    }
  }
  return out;
}

/** The repository paths a piece of text cites: a top-level folder of ours followed by at least one more segment. */
export function citedPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(CITED)) {
    const after = text[m.index + m[0].length] ?? '';
    if ('<*{$'.includes(after) && after !== '') continue; // a placeholder or a glob: host/surfaces/<surface>/, test/**
    const cited = m[0].replace(/[.]+$/, '');
    out.push(cited);
  }
  return out;
}

/** Whether a cited path exists; `x.js` in a source comment counts as its `x.ts` source. */
export function exists(cited: string): boolean {
  const candidates = [cited, cited.replace(/\.js$/, '.ts'), cited.replace(/\.js$/, '.mjs'), cited.replace(/\.js$/, '.mts')];
  return candidates.some((c) => existsSync(path.join(ROOT, c)));
}

function sourcesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir))) {
    const rel = path.posix.join(dir, entry);
    if (statSync(path.join(ROOT, rel)).isDirectory()) { if (entry !== 'node_modules') out.push(...sourcesUnder(rel)); }
    else if (/\.(?:ts|mts|mjs|cjs)$/.test(entry) && !entry.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

test('comments are read apart from strings, templates and regular expressions', () => {
  const source = [
    "const url = 'http://x.test/host/a.ts'; // see host/platform/http/app.ts",
    'const re = /\\/\\/ host\\/b.ts/g; /* core/kernel/kernel.ts */',
    'const t = `a ${b ? "//c" : `d ${"e"}`} // not a comment`; // f',
  ].join('\n');
  assert.equal(commentsOf(source).map((c) => c.text.trim()), ['see host/platform/http/app.ts', 'core/kernel/kernel.ts', 'f']);
});

test('cited paths: files and folders are read, placeholders, globs and dist/ are not', () => {
  assert.equal(citedPaths('see host/app/gateway.ts, docs/api/errors.md and host/surfaces/fax/ (in dist/host/x.js).'), ['host/app/gateway.ts', 'docs/api/errors.md', 'host/surfaces/fax/']);
  assert.equal(citedPaths('host/surfaces/<surface>/install.ts, test/**/x.ts, ${dir}/manifests, /docs/assets'), []);
  assert.equal(citedPaths('core/sdk and host/accounting'), ['core/sdk', 'host/accounting']);
  assert.ok(exists('host/platform/http/app.js') && exists('core/sdk') && !exists('host/accounting') && !exists('host/app/gateway.ts'));
});

test('no comment in core, host, plugins, test, bench or docs/examples cites a path that does not exist', () => {
  const missing: string[] = [];
  const files = ['core', 'host', 'plugins', 'test', 'bench', 'docs/examples'].flatMap(sourcesUnder);
  assert.ok(files.length > 300, 'the scan reads the sources');
  for (const file of files) {
    for (const comment of commentsOf(readFileSync(path.join(ROOT, file), 'utf8'))) {
      for (const cited of citedPaths(comment.text)) if (!exists(cited)) missing.push(`${file}:${comment.line}: ${cited}`);
    }
  }
  assert.equal(missing, [], `comments cite paths that do not exist:\n${missing.join('\n')}`);
});

test('no prose or code span in README.md, docs/ or a plugin README names a repository path that does not exist', () => {
  const missing: string[] = [];
  for (const file of repositoryMarkdown()) {
    // Link targets are the links test's; here the words a reader sees: prose lines and code spans.
    const lines = withoutFences(readRepositoryFile(file)).replace(/\]\([^)]*\)/g, ']').split('\n');
    lines.forEach((text, i) => {
      for (const cited of citedPaths(text)) if (!existsSync(path.join(ROOT, cited))) missing.push(`${file}:${i + 1}: ${cited}`);
    });
  }
  assert.equal(missing, [], `docs name paths that do not exist:\n${missing.join('\n')}`);
});

test.run();
