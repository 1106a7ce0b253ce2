import { register } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let installed = false;

/** The host package's root: this file is dist/core/kernel/sdk-resolver.js. */
function hostPackageRoot(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
}

/**
 * Registers the resolve hooks of sdk-resolve-hooks.ts, once per process: plugins anywhere get
 * the host's `switchboard/sdk`, and a plugin's own modules are re-imported when its content
 * changes. The kernel calls it at start when its search path reaches outside the host package,
 * and its entry loader before it imports the first plugin from outside the package, so the
 * gateway, the CLI's `plugins test` and the SDK's test kernel all get it, and a host with
 * built-ins only never pays for hooks; later calls do nothing.
 */
export function installSdkResolver(): void {
  if (installed) return;
  installed = true;
  const hooks = new URL('./sdk-resolve-hooks.js', import.meta.url);
  const packageJson = path.join(hostPackageRoot(), 'package.json');
  if (!existsSync(fileURLToPath(hooks))) throw new Error(`the SDK resolve hooks are missing from the build: ${fileURLToPath(hooks)}`);
  // The host exports the SDK as `switchboard/sdk`; the SDK package (whose test kit runs this too) as itself.
  const { name } = JSON.parse(readFileSync(packageJson, 'utf8')) as { name?: string };
  const sdkSpecifier = name === 'switchboard' ? 'switchboard/sdk' : '@switchboard/sdk';
  register(hooks, { data: { hostPackageJson: pathToFileURL(packageJson).href, sdkSpecifier } });
}
