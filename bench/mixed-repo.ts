// A generated mixed repository for the code-search benchmark: code in Python, TypeScript,
// JavaScript, Go and C beside Markdown prose, about 6 MB in about 520 files (the shape of the
// held-out repository of issue 39: 523 files, 6.3 MB), written from a seeded generator so every
// run indexes and searches the same bytes without reaching the network.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDir } from '../test/support/gateway.js';

const VERBS = ['get', 'set', 'load', 'parse', 'render', 'fetch', 'update', 'build', 'resolve', 'validate', 'reload', 'encode'];
const NOUNS = ['User', 'Invoice', 'Queue', 'Config', 'Session', 'Token', 'Report', 'Buffer', 'Cache', 'Route', 'Widget', 'Schema', 'Store', 'Metric'];
// Suffixes make names as varied as a real repository's: most names occur in a few files, not in every one.
const SUFFIXES = ['', 'ById', 'All', 'Later', 'Now', 'Async', 'Batch', 'Once', 'Safe', 'Raw'];
const WORDS = ('the a service request response index search query file line match result cache queue worker retry timeout config ' +
  'session token user invoice report widget schema route handler error value field record batch stream buffer metric when which ' +
  'returns reads writes keeps sends every each before after only never always configuration repository branch').split(' ');

/** Literals, regexes and symbol names the generator guarantees to emit, for the benchmark's queries. */
export const MIXED_QUERIES = {
  literals: ['loadInvoice', 'def parse_queue', 'return nil', '#include <stdio.h>', 'the configuration', 'TODO(', 'self.cache', 'err != nil', 'export class', 'reload_session', 'fmt.Errorf(', 'static int'],
  regexes: ['def \\w+_queue\\(', 'func \\(\\w+ \\*\\w+\\) Get\\w*', 'class \\w+Store\\b', 'export function render\\w*\\(', '^## \\w+', 'if err != nil \\{', 'static int \\w+_(load|parse)\\w*\\('],
  symbols: ['loadInvoice', 'parse_queue', 'UserStore', 'renderWidget', 'GetSession', 'token_encode', 'Config', 'build'],
};

function generator(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
}

/** Writes the repository under a new temp directory; the caller removes it. `megabytes` scales it (6 by default). */
export function mixedRepo(megabytes = 6): { dir: string; files: number; bytes: number } {
  const dir = tempDir('switchboard-bench-mixed-');
  const rand = generator(39);
  const pick = <T>(xs: T[]): T => xs[rand(xs.length)]!;
  const camel = () => `${pick(VERBS)}${pick(NOUNS)}${pick(SUFFIXES)}`;
  const snake = () => `${pick(VERBS)}_${pick(NOUNS).toLowerCase()}${pick(SUFFIXES).toLowerCase()}`;
  const sentence = () => {
    const words = Array.from({ length: 6 + rand(14) }, () => pick(WORDS));
    return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`;
  };
  const body: Record<string, () => string> = {
    py: () => {
      const cls = `${pick(NOUNS)}${pick(['Store', 'Service', 'Queue', 'Model', 'View', 'Client', 'Handler', 'Worker'])}`;
      const methods = Array.from({ length: 4 + rand(8) }, () => {
        const name = rand(40) ? snake() : 'parse_queue';
        return `    def ${name}(self, ${pick(WORDS)}_id, retries=${rand(5)}):\n        """${sentence()}"""\n        value = self.${pick(WORDS)}.get(${pick(WORDS)}_id)\n        if value is None:\n            value = ${snake()}(${pick(WORDS)}_id)\n        # ${rand(20) ? 'NOTE' : 'TODO'}(${pick(WORDS)}): ${sentence()}\n        return value\n`;
      });
      return `import os\nfrom .${pick(WORDS)} import ${camel()}\n\n\nclass ${cls}:\n    """${sentence()} ${sentence()}"""\n\n${methods.join('\n')}\n\ndef ${rand(30) ? snake() : 'reload_session'}(${pick(WORDS)}):\n    return ${snake()}(${pick(WORDS)})\n`;
    },
    ts: () => {
      const fns = Array.from({ length: 4 + rand(8) }, () => `/** ${sentence()} */\nexport function ${rand(20) ? camel() : `render${pick(NOUNS)}`}(${pick(WORDS)}: string, limit = ${rand(100)}): Promise<${pick(NOUNS)}> {\n  const found = await ${camel()}(${pick(WORDS)});\n  if (!found) throw new Error('${sentence()}');\n  return found;\n}\n`);
      return `import { ${camel()} } from './${pick(WORDS)}.js';\n\nexport class ${pick(NOUNS)}${pick(['Store', 'Model', 'View', 'Client', 'Handler', 'Worker'])} {\n  private readonly items = new Map<string, ${pick(NOUNS)}>();\n  ${rand(30) ? camel() : 'loadInvoice'}(id: string) {\n    return this.items.get(id);\n  }\n}\n\n${fns.join('\n')}`;
    },
    js: () => Array.from({ length: 5 + rand(10) }, () => `// ${sentence()}\nfunction ${camel()}(${pick(WORDS)}, cb) {\n  setTimeout(() => cb(null, ${pick(WORDS)}), ${rand(1000)});\n}\nmodule.exports.${camel()} = ${camel()};\n`).join('\n'),
    go: () => {
      const recv = pick(NOUNS);
      const fns = Array.from({ length: 4 + rand(8) }, () => `// ${sentence()}\nfunc (s *${recv}) ${rand(2) ? 'Get' : 'Load'}${pick(NOUNS)}(ctx context.Context, id string) (*${pick(NOUNS)}, error) {\n\tv, err := s.${camel()}(ctx, id)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf("${pick(WORDS)}: %w", err)\n\t}\n\treturn v, nil\n}\n`);
      return `package ${pick(WORDS)}\n\nimport (\n\t"context"\n\t"fmt"\n)\n\ntype ${recv} struct {\n\tcache map[string]string\n}\n\n${fns.join('\n')}`;
    },
    c: () => {
      const fns = Array.from({ length: 4 + rand(8) }, () => `/* ${sentence()} */\nstatic int ${pick(NOUNS).toLowerCase()}_${pick(VERBS)}_${pick(WORDS)}(const char *${pick(WORDS)}, size_t len)\n{\n    if (len == 0)\n        return -1;\n    return (int)strlen(${pick(WORDS)});\n}\n`);
      return `#include <stdio.h>\n#include <string.h>\n\nint token_encode(const char *in, char *out);\n\n${fns.join('\n')}`;
    },
    md: () => {
      const sections = Array.from({ length: 3 + rand(6) }, () => `## ${pick(WORDS)} ${pick(WORDS)}\n\n${Array.from({ length: 3 + rand(5) }, () => Array.from({ length: 3 + rand(5) }, sentence).join(' ')).join('\n\n')}\n\nSee the configuration of \`${camel()}\` before changing it.\n`);
      return `# ${pick(NOUNS)} ${pick(WORDS)}\n\n${sections.join('\n')}`;
    },
  };
  const kinds: Array<[string, string, number]> = [['py', 'service', 30], ['ts', 'web/src', 25], ['js', 'web/legacy', 15], ['go', 'cmd', 10], ['c', 'native', 5], ['md', 'docs', 15]];
  const target = megabytes * 1e6;
  let bytes = 0;
  let files = 0;
  while (bytes < target) {
    let r = rand(100);
    const [ext, folder] = kinds.find(([, , share]) => (r -= share) < 0)!;
    // Files of varied size: a few parts of the kind joined, as real files grow.
    const text = Array.from({ length: 1 + rand(ext === 'md' ? 6 : 4) }, body[ext]!).join('\n');
    const file = path.join(dir, folder, pick(WORDS), `${snake()}_${files}.${ext}`);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    bytes += Buffer.byteLength(text);
    files++;
  }
  return { dir, files, bytes };
}
