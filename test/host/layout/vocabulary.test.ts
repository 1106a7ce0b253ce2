import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { envNameOf } from '../../../host/platform/config/sections.js';
import { ADAPTERS, SURFACES } from '../../../host/surfaces/gateway.js';
import { ROOT } from '../../support/gateway.js';
import { importsOf, sourcesUnder, withoutComments } from '../../support/source-code.js';

// A surface owns its words (design.md): its error codes, its settings and its tables are declared
// in the surface; services throw domain errors and only the surface's HTTP layer speaks HTTP.

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');

/** The HTTP layer of a surface: its route files and its http/ folder. */
export function isHttpLayer(file: string): boolean {
  return /-routes?\.ts$/.test(file) || /^host\/surfaces\/[^/]+\/(?:[^/]+\/)*http\//.test(file);
}

const HTTP_ANSWERS = ['host/platform/http/error-catalogue.js', 'host/platform/http/errors.js'];

/** The surface files outside the HTTP layer that import what builds HTTP answers. */
export function servicesSpeakingHttp(files: Array<{ file: string; source: string }>): string[] {
  return files.filter(({ file, source }) => !isHttpLayer(file) && importsOf(file, source).some((to) => HTTP_ANSWERS.includes(to))).map(({ file }) => file);
}

/** Every word a surface declares: its error codes, its setting keys (and their environment names), its tables. */
function surfaceWords(): Map<string, string> {
  const words = new Map<string, string>();
  for (const surface of Object.values(SURFACES)) {
    for (const code of surface.errors.vocabulary.codes()) words.set(code, `${surface.name} error code`);
    for (const key of Object.keys(surface.settings.keys)) {
      words.set(key, `${surface.name} setting`);
      words.set(envNameOf(key), `${surface.name} setting`);
    }
    const migrations = readFileSync(path.join(ROOT, `host/surfaces/${surface.name}/${surface.name}-migrations.ts`), 'utf8');
    for (const [, table] of migrations.matchAll(/createTable\('([a-z_]+)'\)/g)) words.set(table!, `${surface.name} table`);
  }
  // An adapter's settings are its own too (MCP_OUTBOX_DIR).
  for (const adapter of Object.values(ADAPTERS)) for (const key of Object.keys(adapter.settings!.keys)) words.set(key, `${adapter.name} setting`);
  return words;
}

/** Where code (comments aside) names one of `words` inside a string or as an identifier. */
export function namedWords(code: string, words: Map<string, string>): string[] {
  const found = new Set<string>();
  for (const [word, what] of words) {
    const pattern = new RegExp(`(?<![A-Za-z0-9_$.])${word.replace(/[.]/g, '\\.')}(?![A-Za-z0-9_$])`);
    if (pattern.test(code)) found.add(`${word} (${what})`);
  }
  return [...found];
}

test('the rules catch what they name (so the scans below can fail)', () => {
  assert.equal(servicesSpeakingHttp([{ file: 'host/surfaces/fax/jobs/fax-service.ts', source: "import { httpError } from '../../../platform/http/error-catalogue.js';" }]), ['host/surfaces/fax/jobs/fax-service.ts']);
  assert.equal(servicesSpeakingHttp([{ file: 'host/surfaces/fax/jobs/fax-routes.ts', source: "import { httpError } from '../../../platform/http/error-catalogue.js';" }]), []);
  assert.equal(servicesSpeakingHttp([{ file: 'host/surfaces/fax/http/upload.ts', source: "import { HttpError } from '../../../platform/http/errors.js';" }]), []);
  const words = new Map([['fax_jobs', 'fax table'], ['FAX_BACKEND', 'fax setting']]);
  assert.equal(namedWords("db.selectFrom('fax_jobs')", words), ['fax_jobs (fax table)']);
  assert.equal(namedWords("config.get('FAX_BACKEND_X'); const fax_jobs_count = 1;", words), []);
});

test('no surface file outside its HTTP layer imports the HTTP error catalogue: services throw domain errors', () => {
  const files = sourcesUnder(path.join(ROOT, 'host/surfaces')).map((file) => ({ file: relative(file), source: readFileSync(file, 'utf8') }));
  assert.equal(servicesSpeakingHttp(files), []);
});

test('the platform names no error code, setting or table of a surface, nor a setting of an adapter', () => {
  const words = surfaceWords();
  assert.ok([...words.values()].some((w) => w.endsWith('table')) && [...words.values()].some((w) => w.endsWith('error code')), 'the surfaces declare tables and codes');
  const found: string[] = [];
  for (const file of sourcesUnder(path.join(ROOT, 'host/platform'))) {
    for (const word of namedWords(withoutComments(readFileSync(file, 'utf8')), words)) found.push(`${relative(file)}: ${word}`);
  }
  assert.equal(found, []);
});

test('each surface declares its vocabulary next to its install', () => {
  for (const surface of Object.values(SURFACES)) {
    assert.ok(surface.errors.vocabulary.codes().length > 0, `${surface.name} declares error codes`);
    assert.is(surface.errors.vocabulary.owner, surface.name);
    assert.is(surface.settings.owner, surface.name);
    assert.is(surface.migrations.owner, surface.name);
  }
});

test.run();
