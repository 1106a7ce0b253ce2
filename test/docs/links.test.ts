import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ROOT } from '../support/gateway.js';
import { codeSpans, readRepositoryFile, repositoryMarkdown, withoutFences } from './repository-markdown.js';

// Every relative link in the repository's Markdown reaches a file that exists, and every
// `#anchor` names a heading of its target, slugged the way GitHub renders it.

/** GitHub's anchor for a heading: the rendered text, lower-cased, punctuation dropped, spaces as hyphens. */
export function headingSlug(heading: string): string {
  const rendered = heading.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '').replaceAll('`', '');
  return rendered.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors a Markdown file offers: its headings' slugs (repeats numbered -1, -2 ...) and explicit HTML ids. */
export function anchorsOf(markdown: string): Set<string> {
  const prose = withoutFences(markdown);
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const m of prose.matchAll(/^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/gm)) {
    const slug = headingSlug(m[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const m of prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

/** The link targets of the prose (inline links and reference definitions), code spans and fences left out. */
export function linkTargets(markdown: string): { target: string; line: number }[] {
  let prose = withoutFences(markdown);
  for (const span of codeSpans(markdown)) prose = prose.replace(span.text, ' '.repeat(span.text.length));
  const lineAt = (index: number) => prose.slice(0, index).split('\n').length;
  const inline = [...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => ({ target: m[1]!, line: lineAt(m.index) }));
  const references = [...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => ({ target: m[1]!, line: lineAt(m.index) }));
  return [...inline, ...references];
}

/** Why a link from `file` (repository-relative) is broken, or undefined when it resolves. */
export function brokenLink(file: string, target: string, anchorsIn: (file: string) => Set<string>): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return undefined;
  const [rawPath = '', anchor] = target.split('#');
  const linkPath = decodeURIComponent(rawPath);
  const resolved = linkPath === '' ? file : path.posix.normalize(linkPath.startsWith('/') ? linkPath.slice(1) : path.posix.join(path.posix.dirname(file), linkPath));
  if (resolved.startsWith('..') || !existsSync(path.join(ROOT, resolved))) return `${resolved} does not exist`;
  if (anchor && resolved.endsWith('.md') && statSync(path.join(ROOT, resolved)).isFile() && !anchorsIn(resolved).has(anchor)) return `${resolved} has no heading #${anchor}`;
  return undefined;
}

test('GitHub slugs: code, punctuation and links drop out, spaces become hyphens', () => {
  assert.is(headingSlug('Ranking for retrieval backends (`switchboard/sdk/retrieval`)'), 'ranking-for-retrieval-backends-switchboardsdkretrieval');
  assert.is(headingSlug("Escaping: a value never changes the request's structure"), 'escaping-a-value-never-changes-the-requests-structure');
  assert.is(headingSlug('To add X, touch these files'), 'to-add-x-touch-these-files');
  assert.is(headingSlug('See [the guide](guide.md) — twice'), 'see-the-guide--twice');
  assert.equal([...anchorsOf('# Notes\n## Notes\n```\n# not a heading\n```\n<a id="kept"></a>\n')], ['notes', 'notes-1', 'kept']);
});

test('links are read from prose only, and a missing file or heading is reported', () => {
  const md = 'See [a](a.md#top), [b](https://x.test/b.md) and `[c](c.md)`.\n```\n[d](d.md)\n```\n[e]: ../e.md\n';
  assert.equal(linkTargets(md).map((l) => l.target), ['a.md#top', 'https://x.test/b.md', '../e.md']);
  const anchors = () => new Set(['layout']);
  assert.is(brokenLink('README.md', 'docs/architecture.md', anchors), undefined);
  assert.is(brokenLink('README.md', 'docs/no-such-page.md', anchors), 'docs/no-such-page.md does not exist');
  assert.is(brokenLink('docs/architecture.md', '../README.md#layout', anchors), undefined);
  assert.is(brokenLink('docs/architecture.md', '../README.md#nowhere', anchors), 'README.md has no heading #nowhere');
  assert.is(brokenLink('README.md', '../outside.md', anchors), '../outside.md does not exist');
});

test('every relative link in README.md, docs/ and the plugin READMEs resolves', () => {
  const cache = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => cache.get(file) ?? cache.set(file, anchorsOf(readRepositoryFile(file))).get(file)!;
  const broken: string[] = [];
  const files = repositoryMarkdown();
  assert.ok(files.includes('README.md') && files.includes('docs/architecture.md'), 'the scan reads README.md and docs/');
  for (const file of files) {
    for (const { target, line } of linkTargets(readRepositoryFile(file))) {
      const why = brokenLink(file, target, anchorsIn);
      if (why) broken.push(`${file}:${line}: (${target}) ${why}`);
    }
  }
  assert.equal(broken, [], `broken links:\n${broken.join('\n')}`);
});

test.run();
