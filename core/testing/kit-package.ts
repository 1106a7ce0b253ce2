import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package this kit is built into: the host (`switchboard`) or the SDK package
 * (`@switchboard/sdk`); both put it at dist/core/testing, and the kit stands in for a host of
 * that package's version.
 */
export const kitPackageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function kitVersion(): string {
  return (JSON.parse(readFileSync(path.join(kitPackageRoot, 'package.json'), 'utf8')) as { version: string }).version;
}
