import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/gateway.js';

// The Markdown a reader of the repository meets: README.md, docs/ and each built-in plugin's README.

function markdownUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(ROOT, dir))) {
    const rel = path.posix.join(dir, entry);
    if (statSync(path.join(ROOT, rel)).isDirectory()) out.push(...markdownUnder(rel));
    else if (entry.endsWith('.md')) out.push(rel);
  }
  return out;
}

/** Repository-relative paths of README.md, docs/**\/*.md and plugins/<id>/README.md. */
export function repositoryMarkdown(): string[] {
  const pluginReadmes = readdirSync(path.join(ROOT, 'plugins'))
    .map((id) => `plugins/${id}/README.md`)
    .filter((rel) => statSync(path.join(ROOT, path.dirname(rel))).isDirectory() && readdirSync(path.join(ROOT, path.dirname(rel))).includes('README.md'));
  return ['README.md', ...markdownUnder('docs'), ...pluginReadmes];
}

export const readRepositoryFile = (rel: string) => readFileSync(path.join(ROOT, rel), 'utf8');

/** The text with fenced code blocks blanked (line count kept), so examples are not read as prose. */
export function withoutFences(markdown: string): string {
  return markdown.replace(/^(\s*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\s*\2[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ''));
}

/** The inline code spans of the prose (outside fenced blocks), with the line each starts on. */
export function codeSpans(markdown: string): { text: string; line: number }[] {
  const prose = withoutFences(markdown);
  return [...prose.matchAll(/(`+)([^`][\s\S]*?)\1(?!`)/g)].map((m) => ({ text: m[2]!, line: prose.slice(0, m.index).split('\n').length }));
}

/** A ```sh block: its commands (continuations joined, comments dropped) and its skip reason, if marked `<!-- tour-test: skip: why -->`. */
export interface ShellBlock {
  skip: string | null;
  commands: string[];
}

/** The command of a line without its trailing comment (a `#` after a blank, outside quotes). */
export function withoutComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

export function shellBlocks(markdown: string): ShellBlock[] {
  const out: ShellBlock[] = [];
  for (const m of markdown.matchAll(/(?:<!-- tour-test: skip: ([^>]*?) -->\s*\n)?^([ \t]*)```sh\n([\s\S]*?)^\2```/gm)) {
    const lines = m[3]!.split('\n').map((l) => withoutComment(l.trim()));
    const commands: string[] = [];
    let pending = '';
    for (const line of lines) {
      if (line.endsWith('\\')) pending += `${line.slice(0, -1).trim()} `;
      else if (pending || line) {
        commands.push((pending + line).trim());
        pending = '';
      }
    }
    out.push({ skip: m[1] ?? null, commands });
  }
  return out;
}
