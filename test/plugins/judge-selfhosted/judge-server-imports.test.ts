import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../support/gateway.js';
import { importsOf, sourcesUnder } from '../../support/source-code.js';

// The judge server is the server side of this plugin's protocol (design.md: provider protocol lives
// in the provider's plugin): it runs on node, the SDK and its own optional model runtime, and
// imports nothing of the gateway, so it can never reach for the gateway's catalogue or logger.
const FOLDER = 'plugins/judge-selfhosted';
const OPTIONAL_RUNTIME = ['onnxruntime-common', '@huggingface/tokenizers', 'eld', 'onnx-proto'];

/** Why an import of a file in the plugin's folder is not allowed, or undefined when it is. */
export function outsideImport(to: string): string | undefined {
  if (to.startsWith('node:') || to === 'switchboard/sdk' || to.startsWith('switchboard/sdk/')) return undefined;
  if (to.startsWith(`${FOLDER}/`)) return undefined;
  if (OPTIONAL_RUNTIME.some((name) => to === name || to.startsWith(`${name}/`))) return undefined;
  return `${to} is neither node, the SDK, the plugin's own code nor its optional model runtime`;
}

test('the rule refuses what it names (so the scan can fail)', () => {
  assert.ok(outsideImport('prom-client'));
  assert.ok(outsideImport('host/platform/logging/logger.js'));
  assert.ok(outsideImport('core/kernel/egress.js'));
  assert.is(outsideImport('eld/small'), undefined);
  assert.is(outsideImport(`${FOLDER}/server/checkpoints.js`), undefined);
});

test('the plugin and its judge server import only node, the SDK, their own code and the optional model runtime', () => {
  const broken: string[] = [];
  for (const file of sourcesUnder(path.join(ROOT, FOLDER))) {
    const relative = path.relative(ROOT, file).split(path.sep).join('/');
    for (const to of importsOf(relative, readFileSync(file, 'utf8'))) {
      const why = outsideImport(to);
      if (why) broken.push(`${relative}: ${why}`);
    }
  }
  assert.equal(broken, []);
});

test.run();
