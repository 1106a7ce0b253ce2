import type { Node, TreeCursor } from 'web-tree-sitter';
import { grammar } from '../indexing/chunking/grammars.js';
import { isSyntaxLanguage, type Language } from '../indexing/chunking/languages.js';
import { SYNTAX_MAX_CHARS } from '../indexing/chunking/chunk-file.js';

/** A definition: name, kind (function, class, ...), 1-based lines, 1-based column of the name, its container's name. */
export interface SymbolDefinition {
  name: string;
  kind: string;
  line: number;
  column: number;
  endLine: number;
  container: string | null;
}

/** An identifier used (not defined) at a 1-based line and column. */
export type SymbolReference = [name: string, line: number, column: number];

export interface SymbolOutline {
  definitions: SymbolDefinition[];
  references: SymbolReference[];
}

/** Identifier occurrences kept per file: a generated table of thousands of names says little more. */
const MAX_REFERENCES = 20_000;

/**
 * The definitions (the chunker's tree-sitter queries) and identifier occurrences of a file, for
 * symbol search, go-to-definition and find-references. Files the chunker does not parse have none.
 */
export async function symbolOutline(source: string, language: Language): Promise<SymbolOutline> {
  if (!isSyntaxLanguage(language) || source.length > SYNTAX_MAX_CHARS) return { definitions: [], references: [] };
  const { parser, query } = await grammar(language);
  const tree = parser.parse(source);
  if (!tree) return { definitions: [], references: [] };
  try {
    const found: Array<{ node: Node; name: Node; kind: string }> = [];
    for (const m of query.matches(tree.rootNode)) {
      const def = m.captures.find((c) => c.name.startsWith('def'));
      const name = m.captures.find((c) => c.name === 'name');
      if (def && name) found.push({ node: def.node, name: name.node, kind: def.name.slice(4) || 'definition' });
    }
    found.sort((a, b) => a.node.startIndex - b.node.startIndex || b.node.endIndex - a.node.endIndex);
    const definitions: SymbolDefinition[] = [];
    const defined = new Set<number>();
    const stack: Array<{ end: number; name: string }> = [];
    for (const f of found) {
      if (defined.has(f.name.startIndex)) continue; // one node matched by two patterns
      defined.add(f.name.startIndex);
      while (stack.length && stack[stack.length - 1]!.end <= f.node.startIndex) stack.pop();
      const name = f.name.text.replace(/\s+/g, ' ').slice(0, 200);
      definitions.push({ name, kind: f.kind, line: f.name.startPosition.row + 1, column: f.name.startPosition.column + 1, endLine: f.node.endPosition.row + 1, container: stack[stack.length - 1]?.name ?? null });
      stack.push({ end: f.node.endIndex, name });
    }
    const references: SymbolReference[] = [];
    collectIdentifiers(tree.walk(), defined, references);
    return { definitions, references };
  } finally {
    tree.delete();
  }
}

// Every grammar names its identifier nodes `identifier`, `type_identifier`, `field_identifier`, ...
function collectIdentifiers(cursor: TreeCursor, defined: Set<number>, out: SymbolReference[]): void {
  for (;;) {
    const type = cursor.nodeType;
    if (type.endsWith('identifier') && !defined.has(cursor.startIndex)) {
      const text = cursor.nodeText;
      if (text.length <= 200 && out.length < MAX_REFERENCES) out.push([text, cursor.startPosition.row + 1, cursor.startPosition.column + 1]);
    }
    if (cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) {
      if (!cursor.gotoParent()) {
        cursor.delete();
        return;
      }
    }
  }
}
