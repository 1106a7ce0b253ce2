import path from 'node:path';

/** Languages tree-sitter cuts into definitions, the grammar file of each and its query. */
export type SyntaxLanguage = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust' | 'java' | 'c' | 'cpp';
export type Language = SyntaxLanguage | 'markdown' | 'text';

const BY_EXTENSION: Record<string, Language> = {
  '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript',
  '.tsx': 'tsx',
  '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript', '.jsx': 'javascript',
  '.py': 'python', '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.c': 'c', '.h': 'c',
  '.cc': 'cpp', '.cpp': 'cpp', '.cxx': 'cpp', '.hpp': 'cpp', '.hh': 'cpp', '.hxx': 'cpp',
  '.md': 'markdown', '.mdx': 'markdown', '.markdown': 'markdown',
};

export function languageOf(filePath: string): Language {
  return BY_EXTENSION[path.extname(filePath).toLowerCase()] ?? 'text';
}

export function isSyntaxLanguage(language: Language): language is SyntaxLanguage {
  return language !== 'markdown' && language !== 'text';
}

/** `@def` is the definition node, `@name` its name; the capture name after `def.` is the kind. */
const JS_COMMON = `
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (_) @name) @def.class
(method_definition name: (_) @name) @def.method
(lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @def.function
`;
const TS_EXTRA = `
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.interface
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.enum
(function_signature name: (identifier) @name) @def.function
(abstract_method_signature name: (_) @name) @def.method
`;
const C_FUNCTIONS = `
(function_definition declarator: (function_declarator declarator: (_) @name)) @def.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator declarator: (_) @name))) @def.function
(struct_specifier name: (type_identifier) @name body: (_)) @def.struct
(enum_specifier name: (type_identifier) @name body: (_)) @def.enum
`;

export const QUERIES: Record<SyntaxLanguage, string> = {
  typescript: JS_COMMON + TS_EXTRA,
  tsx: JS_COMMON + TS_EXTRA,
  javascript: JS_COMMON,
  python: `
(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class
`,
  go: `
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_declaration (type_spec name: (type_identifier) @name)) @def.type
`,
  rust: `
(function_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.struct
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.trait
(impl_item type: (_) @name) @def.impl
(mod_item name: (identifier) @name body: (_)) @def.module
`,
  java: `
(class_declaration name: (identifier) @name) @def.class
(interface_declaration name: (identifier) @name) @def.interface
(enum_declaration name: (identifier) @name) @def.enum
(record_declaration name: (identifier) @name) @def.record
(method_declaration name: (identifier) @name) @def.method
(constructor_declaration name: (identifier) @name) @def.constructor
`,
  c: C_FUNCTIONS,
  cpp:
    C_FUNCTIONS +
    `
(class_specifier name: (type_identifier) @name body: (_)) @def.class
(namespace_definition name: (_) @name body: (_)) @def.namespace
`,
};
