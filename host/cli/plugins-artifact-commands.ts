import { readFileSync } from 'node:fs';
import { findHostPackage } from './package-root.js';
import { parseCommandArgs, UsageError } from './cli-command.js';
import type { CliOutput } from './main.js';
import { packPluginFolder, signPackageFile, verifyPackageFile } from './plugins-pack.js';

/** `plugins pack <dir> [--out D]`: prints the package's path, digest and the integrity to install it with. */
export async function pluginsPack(args: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { out: { type: 'string' } });
  if (positionals.length !== 1) throw new UsageError('plugins pack needs one plugin folder');
  return reporting(io, async () => {
    const packed = await packPluginFolder(positionals[0]!, { hostVersion: findHostPackage(import.meta.url).version, outDir: values.out ?? process.cwd() });
    const checked = await verifyPackageFile(packed.file);
    io.out(packed.file);
    io.out(`${packed.id}@${packed.version}: ${packed.files} files`);
    io.out(`digest ${packed.digest}`);
    io.out(`integrity ${checked.integrity}`);
  });
}

/** `plugins sign <pkg> --key <ed25519 private key PEM file>`. */
export async function pluginsSign(args: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { key: { type: 'string' } });
  if (positionals.length !== 1 || !values.key) throw new UsageError('plugins sign needs a package and --key <private key PEM file>');
  return reporting(io, async () => {
    const signed = await signPackageFile(positionals[0]!, readFileSync(values.key!, 'utf8'));
    const checked = await verifyPackageFile(positionals[0]!);
    io.out(`digest ${signed.digest}`);
    io.out(`signer ${signed.fingerprint}`);
    io.out(`integrity ${checked.integrity}`);
  });
}

/** `plugins verify <pkg> [--trusted-keys K]` (default: PLUGIN_TRUSTED_KEYS): exit 1 when tampered or not trusted. */
export async function pluginsVerify(args: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { 'trusted-keys': { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length !== 1) throw new UsageError('plugins verify needs one package');
  return reporting(io, async () => {
    const result = await verifyPackageFile(positionals[0]!, values['trusted-keys'] ?? (process.env.PLUGIN_TRUSTED_KEYS || undefined));
    if (values.json) io.out(JSON.stringify(result, null, 2));
    else {
      io.out(`${result.id}@${result.version}: files match their SHA-256`);
      io.out(`digest ${result.digest}`);
      io.out(`integrity ${result.integrity}`);
      io.out(result.signer ? `signer ${result.signer} (signature valid${result.trusted === null ? '' : result.trusted ? ', trusted' : ', NOT trusted'})` : 'unsigned');
    }
    if (result.trusted === false) return 1;
  });
}

async function reporting(io: CliOutput, run: () => Promise<number | void>): Promise<number> {
  try {
    return (await run()) ?? 0;
  } catch (error) {
    io.err(`switchboard: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
