import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseCommandArgs, UsageError, type CliCommand } from './cli-command.js';
import { findHostPackage } from './package-root.js';

/** Where the SDK package (`@switchboard/sdk`, an npm workspace) lives in the host's checkout. */
export const SDK_PACKAGE_DIR = 'packages/sdk';

export interface SdkTarball {
  file: string;
  name: string;
  version: string;
  /** SRI of the tarball's bytes, as npm's lock file records it. */
  integrity: string;
}

/**
 * `npm pack` of the SDK workspace into `outDir`: built from this checkout's core/ (its prepack
 * builds from empty), so the tarball is this host's SDK; npm packs with fixed times, so the same
 * sources give the same bytes. Refuses an SDK package whose version is not the host's.
 */
export async function packSdk(options: { hostRoot: string; hostVersion: string; outDir: string }): Promise<SdkTarball> {
  const dir = path.join(options.hostRoot, SDK_PACKAGE_DIR);
  if (!existsSync(path.join(dir, 'package.json'))) throw new Error(`the SDK package is not in this host (${dir}): sdk pack needs the host's source checkout`);
  const { name, version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string };
  if (version !== options.hostVersion) throw new Error(`${name} is at ${version} but the host at ${options.hostVersion}: they are released together`);
  const stdout = await npm(['pack', '--json', '--pack-destination', path.resolve(options.outDir)], dir);
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  if (!packed) throw new Error('npm pack reported no tarball');
  const file = path.resolve(options.outDir, packed.filename);
  return { file, name, version, integrity: `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}` };
}

function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`npm ${args.join(' ')} failed (exit ${code}): ${stderr.trim().split('\n').slice(-5).join('\n')}`))));
  });
}

const SDK_USAGE = `usage: switchboard sdk pack [--out D]

pack   writes switchboard-sdk-<version>.tgz, the SDK package (@switchboard/sdk) of this host's
       version, into D or the current folder, and prints its path and integrity. A plugin folder
       made by \`switchboard plugins new\` beside it depends on it (npm install works offline of
       any checkout); the host still hands every loaded plugin its own running SDK.`;

/** `switchboard sdk pack`: the SDK tarball plugin authors install for types and the test kit. */
export const SDK_COMMAND: CliCommand = {
  name: 'sdk',
  summary: 'pack: write the SDK package tarball (@switchboard/sdk) of this host for plugin authors',
  usage: SDK_USAGE,
  run: async (args, io) => {
    const [verb, ...rest] = args;
    if (verb !== 'pack') throw new UsageError(verb === undefined ? 'sdk needs pack' : `unknown sdk command: ${verb}`);
    const { values, positionals } = parseCommandArgs(rest, { out: { type: 'string' } });
    if (positionals.length) throw new UsageError(`unexpected argument: ${positionals[0]}`);
    const host = findHostPackage(import.meta.url);
    try {
      const packed = await packSdk({ hostRoot: host.root, hostVersion: host.version, outDir: values.out ?? process.cwd() });
      io.out(packed.file);
      io.out(`${packed.name}@${packed.version}`);
      io.out(`integrity ${packed.integrity}`);
      return 0;
    } catch (error) {
      io.err(`switchboard: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
  },
};
