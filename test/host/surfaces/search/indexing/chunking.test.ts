import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chunkFile } from '../../../../../host/surfaces/search/indexing/chunking/chunk-file.js';
import { languageOf, type Language } from '../../../../../host/surfaces/search/indexing/chunking/languages.js';
import { lineWindows } from '../../../../../host/surfaces/search/indexing/chunking/line-windows.js';

// Tiny limits keep every definition its own chunk (nothing packs two together).
const limits = { size: 60, overlap: 20 };

/** The named definitions of a source: `symbol@start-end`. */
async function definitions(source: string, language: Language): Promise<string[]> {
  const chunks = await chunkFile(source, language, limits);
  return chunks.filter((c) => c.symbol && !['window', 'body', 'definitions'].includes(c.kind)).map((c) => `${c.symbol}@${c.startLine}-${c.endLine}`);
}

const pad = (body: string) => `${body}\n${'  // filler line to make the definition long enough to stay alone'.repeat(1)}`;

test('languages by extension', () => {
  assert.is(languageOf('a/b.ts'), 'typescript');
  assert.is(languageOf('a/b.tsx'), 'tsx');
  assert.is(languageOf('x.mjs'), 'javascript');
  assert.is(languageOf('x.py'), 'python');
  assert.is(languageOf('x.go'), 'go');
  assert.is(languageOf('x.rs'), 'rust');
  assert.is(languageOf('X.java'), 'java');
  assert.is(languageOf('x.c'), 'c');
  assert.is(languageOf('x.cpp'), 'cpp');
  assert.is(languageOf('README.md'), 'markdown');
  assert.is(languageOf('Makefile'), 'text');
});

test('TypeScript: functions, classes, methods, interfaces and arrow functions with exact 1-based lines', async () => {
  const src = [
    "import { x } from '../retrieval/x.js';", // 1
    '', // 2
    'export function parseHttpHeader(line: string): string {', // 3
    "  return line.split(':')[0] ?? '';", // 4
    '}', // 5
    '', // 6
    'export interface Header {', // 7
    '  name: string;', // 8
    '}', // 9
    '', // 10
    'export const coalesce = (a: number, b: number) => a + b;', // 11
  ].join('\n');
  assert.equal(await definitions(src, 'typescript'), ['parseHttpHeader@3-5', 'Header@7-9', 'coalesce@11-11']);
});

test('TypeScript: a class too large for one chunk is cut into its methods, named Class.method', async () => {
  const body = (name: string, start: number) => [`  ${name}(): void {`, `    console.log('${name} does a fairly long piece of work here');`, '  }'];
  const src = ['export class ReloadQueue {', ...body('enqueue', 2), ...body('drain', 5), '}'].join('\n');
  const defs = await definitions(src, 'typescript');
  assert.equal(defs, ['ReloadQueue.enqueue@2-4', 'ReloadQueue.drain@5-7']);
});

test('JavaScript, Python, Go, Rust, Java, C and C++ definitions with their names', async () => {
  assert.equal(await definitions(pad('function load(a) {\n  return a;\n}'), 'javascript'), ['load@1-3']);
  assert.equal(
    await definitions('import os\n\nclass Store:\n    def get(self, key):\n        return os.environ.get(key, "a default value here")\n\n    def put(self, key, value):\n        os.environ[key] = value + "some more text here"\n', 'python'),
    ['Store.get@4-5', 'Store.put@7-8'],
  );
  assert.equal(
    await definitions('package main\n\nfunc Serve(addr string) error {\n\treturn listenAndServeForever(addr)\n}\n\nfunc (s *Server) Close() error {\n\treturn s.listener.CloseEverything()\n}\n', 'go'),
    ['Serve@3-5', 'Close@7-9'],
  );
  assert.equal(await definitions('fn parse_header(line: &str) -> String {\n    line.to_string()\n}\n\nstruct Header {\n    name: String,\n}\n', 'rust'), ['parse_header@1-3', 'Header@5-7']);
  assert.equal(
    await definitions('public class Fax {\n  public void send(String to) {\n    System.out.println("sending a fax to the number " + to);\n  }\n  public int pages() {\n    return 1; // one page is what every fax has\n  }\n}\n', 'java'),
    ['Fax.send@2-4', 'Fax.pages@5-7'],
  );
  assert.equal(await definitions('#include <stdio.h>\n\nint add(int a, int b) {\n  return a + b;\n}\n\nstatic char *name(void) {\n  return "x";\n}\n', 'c'), ['add@3-5', 'name@7-9']);
  const cpp = 'namespace fax {\nclass Modem {\n public:\n  int dial(int n) { return n + 1; /* a long enough body that goes on and on */ }\n  int hang(int n) { return n - 1; /* a long enough body that goes on and on */ }\n};\n}\n\nint Modem::reset() {\n  return 0;\n}\n';
  assert.equal(await definitions(cpp, 'cpp'), ['fax.Modem.dial@4-4', 'fax.Modem.hang@5-5', 'Modem::reset@9-11']);
});

test('Markdown is cut by heading, each section named by it', async () => {
  const src = '# Title\nintro\n\n## Install\nrun npm install\n\n```sh\n# not a heading\n```\n\n## Search\ncurl it\n';
  const chunks = await chunkFile(src, 'markdown', { size: 1000, overlap: 200 });
  assert.equal(chunks.map((c) => [c.symbol, c.startLine, c.endLine]), [['Title', 1, 3], ['Install', 4, 10], ['Search', 11, 12]]);
});

test('line windows keep every line, overlap by about CHUNK_OVERLAP characters and always move forward', () => {
  const lines = Array.from({ length: 50 }, (_, i) => `line ${String(i).padStart(2, '0')} ${'x'.repeat(12)}`); // 21 chars + newline
  const windows = lineWindows(lines, 0, 49, { size: 110, overlap: 44 });
  assert.is(windows[0]!.startLine, 1);
  assert.is(windows[0]!.endLine, 5);
  assert.is(windows[1]!.startLine, 4, 'two lines (44 characters) of overlap');
  assert.is(windows[windows.length - 1]!.endLine, 50);
  for (let i = 1; i < windows.length; i++) assert.ok(windows[i]!.startLine > windows[i - 1]!.startLine);
  const huge = lineWindows(['y'.repeat(5000), 'z'], 0, 1, { size: 100, overlap: 99 });
  assert.equal(huge.map((w) => [w.startLine, w.endLine]), [[1, 1], [2, 2]], 'a line longer than the size is its own window');
});

test('text without a grammar falls back to line windows', async () => {
  const chunks = await chunkFile('a\nb\nc\n', 'text', { size: 1000, overlap: 200 });
  assert.equal(chunks.map((c) => [c.startLine, c.endLine, c.kind]), [[1, 3, 'window']]);
});

test.run();
