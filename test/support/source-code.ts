import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every .ts file under `dir` (absolute paths). */
export function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    // Installed dependencies (a plugin's runtime/node_modules) are not the project's code.
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourcesUnder(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * The code of a TypeScript file with its comments blanked out (strings, template literals and
 * regular expressions kept), so a comment may name a provider but code may not.
 */
export function withoutComments(text: string): string {
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


const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module a file imports: repository-relative paths for relative imports, package names otherwise. */
export function importsOf(file: string, source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const out: string[] = [];
  for (const m of code.matchAll(SPECIFIER)) {
    const spec = (m[1] ?? m[2])!;
    out.push(spec.startsWith('.') ? path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)) : spec);
  }
  return out;
}
