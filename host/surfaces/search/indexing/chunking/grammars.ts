import { createRequire } from 'node:module';
import path from 'node:path';
import { Language, Parser, Query } from 'web-tree-sitter';
import { QUERIES, type SyntaxLanguage } from './languages.js';

const require = createRequire(import.meta.url);

/** Prebuilt grammars: @vscode/tree-sitter-wasm for most, tree-sitter-c's own wasm for C. */
function wasmFile(language: SyntaxLanguage): string {
  if (language === 'c') return require.resolve('tree-sitter-c/tree-sitter-c.wasm');
  const dir = path.join(path.dirname(require.resolve('@vscode/tree-sitter-wasm/package.json')), 'wasm');
  return path.join(dir, `tree-sitter-${language}.wasm`);
}

export interface Grammar {
  parser: Parser;
  query: Query;
}

let init: Promise<void> | undefined;
const loaded = new Map<SyntaxLanguage, Promise<Grammar>>();

/** A parser and the definitions query of `language`, loaded once per process. */
export function grammar(language: SyntaxLanguage): Promise<Grammar> {
  let g = loaded.get(language);
  if (!g) {
    g = (async () => {
      init ??= Parser.init();
      await init;
      const lang = await Language.load(wasmFile(language));
      const parser = new Parser();
      parser.setLanguage(lang);
      return { parser, query: new Query(lang, QUERIES[language]) };
    })();
    loaded.set(language, g);
  }
  return g;
}
