import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sourcesUnder, withoutComments } from '../../support/source-code.js';

// dist/test/host/layout -> the package root
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The ids of the built-in plugins, read from the manifests they ship as. */
function builtInIds(): string[] {
  const dir = path.join(root, 'manifests');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => (JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { id: string }).id);
}

/**
 * Names in host/ that are equal to a built-in plugin id but are not one, each with its reason.
 * Anything else naming a built-in plugin in host/ code is a seam leak.
 */
const NOT_PLUGIN_REFERENCES: Array<{ file: string; id: string; why: string }> = [
  { file: 'host/cli/judge-server.ts', id: 'judge-selfhosted', why: 'the path of the judge server it runs: the server side of that plugin\'s protocol lives in its folder' },
  { file: 'host/surfaces/workbench/judges/judge-settings.ts', id: 'judge-selfhosted', why: 'the path of the judge server\'s settings, declared beside the server, which the gateway\'s configuration includes' },
  { file: 'host/surfaces/workbench/containers/container-settings.ts', id: 'judge-selfhosted', why: 'the compose service key of the judge server container, not the plugin' },
  {
    file: 'host/surfaces/fax/fax-migrations.ts',
    id: 'sip',
    why: 'migration 0004 renamed stored rows to the id the plugin had then; a migration that ran must keep its meaning',
  },
  {
    file: 'host/surfaces/workbench/workbench-migrations.ts',
    id: 'alert-webhook',
    why: 'migration workbench/0003 moved webhook: outbox rows to the instances of the default alert sink the package had then; a migration that ran must keep its meaning',
  },
];

test('no built-in plugin id appears in host/ code (comments aside): seams are chosen by plugin id from manifests', () => {
  const ids = builtInIds();
  assert.ok(ids.length >= 12, 'the built-in manifests are found');
  const found: string[] = [];
  for (const file of sourcesUnder(path.join(root, 'host'))) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    const code = withoutComments(readFileSync(file, 'utf8'));
    for (const id of ids) {
      const pattern = new RegExp(`(?<![A-Za-z0-9_$-])${id.replace(/-/g, '\\-')}(?![A-Za-z0-9_$-])`, 'g');
      const hits = code.match(pattern)?.length ?? 0;
      if (hits && !NOT_PLUGIN_REFERENCES.some((e) => e.file === relative && e.id === id)) found.push(`${relative}: ${id} (${hits}x)`);
    }
  }
  assert.equal(found, []);
});

/** The aliases the built-in manifests declare (the spec's `hosted`, `selfhosted`), read from them. */
function builtInAliases(): string[] {
  const dir = path.join(root, 'manifests');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .flatMap((name) => (JSON.parse(readFileSync(path.join(dir, name), 'utf8')) as { aliases?: string[] }).aliases ?? []);
}

/** String literals, read left to right, so quotes inside another string are its text. */
const LITERAL = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;

/** Which of `names` host code (comments aside) holds as a whole string. */
export function namesAsStrings(code: string, names: readonly string[]): string[] {
  const strings = new Set([...code.matchAll(LITERAL)].map((m) => m[0].slice(1, -1)));
  return names.filter((name) => strings.has(name));
}

/** Strings in host/ equal to a judge alias that do not name the plugin, each with its reason. */
const NOT_ALIAS_REFERENCES: Array<{ file: string; name: string; why: string }> = [
  { file: 'host/surfaces/workbench/judges/judge-routes.ts', name: 'hosted', why: 'the `hosting` word of GET /api/judges (hosted or self-hosted, read from a manifest\'s egress), not the alias' },
];

test('the rule on alias strings catches what it names, and prose or longer names pass', () => {
  assert.equal(namesAsStrings("kernel.pluginIdFor('selfhosted')", ['hosted', 'selfhosted']), ['selfhosted']);
  assert.equal(namesAsStrings('labels: { provider: "hosted" }', ['hosted', 'selfhosted']), ['hosted']);
  assert.equal(namesAsStrings("describe('the hosted judge'); type: 'judge_selfhosted_unscrapable'", ['hosted', 'selfhosted']), []);
  assert.equal(namesAsStrings(`describe('an alias ("hosted", "selfhosted")')`, ['hosted', 'selfhosted']), []);
});

test('host code names no judge by its alias (hosted, selfhosted) as a string: it asks the active judge through the judge contract', () => {
  const aliases = builtInAliases();
  assert.ok(aliases.includes('hosted') && aliases.includes('selfhosted'), 'the judge aliases are found');
  const found: string[] = [];
  for (const file of sourcesUnder(path.join(root, 'host'))) {
    const relative = path.relative(root, file).split(path.sep).join('/');
    for (const name of namesAsStrings(withoutComments(readFileSync(file, 'utf8')), aliases)) {
      if (!NOT_ALIAS_REFERENCES.some((e) => e.file === relative && e.name === name)) found.push(`${relative}: '${name}'`);
    }
  }
  assert.equal(found, []);
  for (const e of NOT_ALIAS_REFERENCES) assert.ok(namesAsStrings(withoutComments(readFileSync(path.join(root, e.file), 'utf8')), [e.name]).length, `${e.file} still holds '${e.name}'`);
});

test('the comment stripper keeps strings and regular expressions and drops comments', () => {
  const code = withoutComments(["const a = 'providera'; // providerb", '/* sip */ const b = /x\\/y/g.test(`pbxb`);', 'const c = 1 / 2; // d'].join('\n'));
  assert.ok(code.includes("'providera'"));
  assert.ok(code.includes('`pbxb`'));
  assert.ok(code.includes('/x\\/y/g'));
  assert.not.ok(code.includes('providerb'));
  assert.not.ok(code.includes('sip'));
  assert.not.ok(code.includes(' d'));
});

test('every exception still names something that is there, so the list cannot go stale', () => {
  for (const e of NOT_PLUGIN_REFERENCES) {
    const code = withoutComments(readFileSync(path.join(root, e.file), 'utf8'));
    assert.ok(new RegExp(`(?<![A-Za-z0-9_$-])${e.id}(?![A-Za-z0-9_$-])`).test(code), `${e.file} still holds ${e.id}`);
  }
});

test.run();
