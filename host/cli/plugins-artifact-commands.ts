import { readFileSync } from 'node:fs';
import { unwrap } from '../../clients/typescript/src/index.js';
import { withGateway } from './gateway-connection.js';
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

/** `plugins install <package.tgz | https URL> --integrity I`: POST /plugin-registry/install of a running gateway. */
export async function pluginsInstall(args: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { integrity: { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length !== 1 || !values.integrity) throw new UsageError('plugins install needs a package file or https URL and --integrity <sha512-...>');
  const source = positionals[0]!;
  const form = new FormData();
  if (/^https:\/\//i.test(source)) form.set('url', source);
  else form.set('package', new Blob([new Uint8Array(readFileSync(source))]), source.split('/').pop() ?? 'package.tgz');
  form.set('integrity', values.integrity);
  return withGateway(io, async (client) => {
    const body = await client.request<{ version: string; current: boolean; warnings: string[]; plugin: { id: string; state: string; generation: number | null } | null }>('POST', '/plugin-registry/install', { form });
    if (values.json) io.out(JSON.stringify(body, null, 2));
    else {
      io.out(`${body.plugin?.id ?? '?'}@${body.version}: ${body.current ? `current, ${body.plugin?.state} (generation ${body.plugin?.generation})` : 'kept, not current'}`);
      for (const w of body.warnings) io.out(`warning: ${w}`);
    }
    return 0;
  });
}

/** `plugins versions <id>`: the installed versions of a packaged plugin. */
export async function pluginsVersions(args: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } });
  if (positionals.length !== 1) throw new UsageError('plugins versions needs a plugin id');
  return withGateway(io, async (client) => {
    const body = await unwrap(client.GET('/plugins/{id}/versions', { params: { path: { id: positionals[0]! } } }));
    if (values.json) io.out(JSON.stringify(body, null, 2));
    else for (const v of body.versions) io.out(`${v.current ? '*' : ' '} ${v.version}  ${v.digest}  ${v.signer ?? 'unsigned'}  ${v.installed_by}  ${v.installed_at}${v.current && body.pinned ? '  pinned' : ''}`);
    return 0;
  });
}

/** `plugins rollback <id> [--to V]`: back to the previous (or named) installed version. */
export async function pluginsRollback(args: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { to: { type: 'string' }, json: { type: 'boolean' } });
  if (positionals.length !== 1) throw new UsageError('plugins rollback needs a plugin id');
  return withGateway(io, async (client) => {
    const body = await unwrap(client.POST('/plugins/{id}/rollback', { params: { path: { id: positionals[0]! } }, ...(values.to ? { body: { version: values.to } } : {}) }));
    if (values.json) io.out(JSON.stringify(body, null, 2));
    else io.out(`${positionals[0]}: ${body.from ?? '-'} -> ${body.to} (generation ${body.plugin?.generation ?? '-'})`);
    return 0;
  });
}
