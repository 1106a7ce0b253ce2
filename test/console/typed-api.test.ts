import { execFile } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDir, ROOT, tempDir } from '../support/gateway.js';

// The console speaks to the gateway only through clients/typescript, and its answers are typed
// by the generated schema: its type check passes, a changed route schema breaks it, and no file
// under web/src sends a request of its own or builds an API URL by hand.
const run = promisify(execFile);
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const WEB_SRC = path.join(ROOT, 'web/src');

/** Type-checks the console in `root` (a checkout, or a copy of web/ and the client beside each other). */
async function typeCheck(root: string): Promise<{ code: number; output: string }> {
  const out = await run(process.execPath, [TSC, '-p', path.join(root, 'web/tsconfig.json'), '--noEmit', '--pretty', 'false']).then(
    (done) => ({ code: 0, ...done }),
    (failed: { code: number; stdout: string; stderr: string }) => failed,
  );
  return { code: out.code, output: `${out.stdout}${out.stderr}` };
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? sources(file) : /\.tsx?$/.test(name) ? [file] : [];
  });
}

test('the console type-checks against the generated schema', async () => {
  const { code, output } = await typeCheck(ROOT);
  assert.is(code, 0, output);
});

test("a route's changed answer breaks the console's type check", async () => {
  // A copy of web/ and the client, with GET /admin/fax-jobs answering next_page instead of next_cursor.
  const copy = tempDir('console-schema-drift-');
  try {
    cpSync(path.join(ROOT, 'web'), path.join(copy, 'web'), { recursive: true, filter: (f) => !f.startsWith(path.join(ROOT, 'web/dist')) });
    cpSync(path.join(ROOT, 'clients/typescript/src'), path.join(copy, 'clients/typescript/src'), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
    const schemaFile = path.join(copy, 'clients/typescript/src/schema.d.ts');
    const schema = readFileSync(schemaFile, 'utf8');
    const start = schema.indexOf('    getAdminFaxJobs: {');
    const end = schema.indexOf('\n    };', start);
    assert.ok(start > 0 && end > start, 'the operation is in the schema');
    const operation = schema.slice(start, end);
    assert.match(operation, /next_cursor: string \| null;/);
    writeFileSync(schemaFile, schema.slice(0, start) + operation.replace('next_cursor: string | null;', 'next_page: string | null;') + schema.slice(end));

    const { code, output } = await typeCheck(copy);
    assert.is.not(code, 0, output);
    assert.match(output, /web\/src\/pages\/fax\/job-list\.tsx\(\d+,\d+\): error TS2339: Property 'next_cursor' does not exist/);
  } finally {
    removeDir(copy);
  }
});

test('web/src calls the API only through the client: no fetch, XMLHttpRequest or EventSource, no API URL built by hand', () => {
  const files = sources(WEB_SRC);
  assert.ok(files.length > 20, `${files.length} files read`);
  const apiPath = String.raw`\/(?:health|admin|api|fax|inbound|plugins|plugin-registry|webhooks|mcp|metrics)\b`;
  const rules: [string, RegExp][] = [
    ['a request of its own', /\bfetch\(|\bXMLHttpRequest\b|\bEventSource\b|\bnew Request\(/],
    ['an API path built in a template', new RegExp(`\`${apiPath}[^\`]*\\$\\{`)],
    ['an API path built by concatenation', new RegExp(`['"]${apiPath}[^'"]*['"]\\s*\\+`)],
  ];
  const found: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const [what, rule] of rules) if (rule.test(line)) found.push(`${path.relative(ROOT, file)}:${i + 1}: ${what}: ${line.trim()}`);
      });
  }
  assert.equal(found, []);
});

test.run();
