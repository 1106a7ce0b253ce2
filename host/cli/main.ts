import { findHostPackage } from './package-root.js';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { evalCommand, EVAL_USAGE } from './eval-command.js';
import { parseCommandArgs, UsageError, type CliCommand } from './cli-command.js';
import { FAX_COMMAND, INDEX_COMMAND, KEYS_COMMAND, listPlugins, SEARCH_COMMAND } from './gateway-commands.js';
import { LAB_USAGE } from './lab.js';
import { SDK_COMMAND } from './sdk-pack.js';
import { PROVIDER_KINDS } from '../../core/sdk/index.js';

export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

const consoleOutput: CliOutput = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

const PLUGINS_USAGE = `usage: switchboard plugins new <kind> <id> [--dir D] [--sdk <tgz | range>]
       switchboard plugins lint [--json] <manifest.json...>
       switchboard plugins test [--settings <json>] <dir>
       switchboard plugins list [--json]
       switchboard plugins pack <dir> [--out D]
       switchboard plugins sign <package.tgz> --key <ed25519 private key PEM>
       switchboard plugins verify <package.tgz> [--trusted-keys K] [--json]
       switchboard plugins install <package.tgz | https URL> --integrity I [--json]
       switchboard plugins versions <id> [--json]
       switchboard plugins rollback <id> [--to V] [--json]

new    writes a portable plugin folder <id>/ (or D): manifest, src/index.ts, a prebuilt dist/, a
       tsconfig, a node:test conformance test, a package.json with the SDK package
       (@switchboard/sdk: the tarball \`switchboard sdk pack\` wrote into the current folder, by a
       relative path, or --sdk) and the host's TypeScript as dev dependencies (npm install; npm
       test; npm run lint) and a README. Kinds: ${PROVIDER_KINDS.join(', ')}.
lint   validates plugin manifests as this host would load them (exit 1 when one has errors).
test   loads the plugin folder <dir> through the host's loader, runs the conformance suite of
       every kind it provides, then every *.test.js of the folder with the host's
       switchboard/sdk/testing (exit 1 when a case or a file fails).
list   the plugins of a running gateway (SWITCHBOARD_URL, key from SWITCHBOARD_API_KEY).
pack   writes <id>-<version>.tgz (into D or the current folder): manifest, built code, files.json
       with each file's SHA-256; refuses a manifest failing lint, an entry leaving the folder, a
       bundled SDK. Prints the package digest and the integrity (SRI) to install it with.
sign   adds an Ed25519 signature over the package digest (signature.json); prints the signer.
verify checks every file against files.json and the signature; prints digest and signer (exit 1
       when tampered, or when the signer is not among the trusted keys given or PLUGIN_TRUSTED_KEYS).
install, versions, rollback: a running gateway's POST /plugin-registry/install, GET
       /plugins/{id}/versions and POST /plugins/{id}/rollback (SWITCHBOARD_URL, SWITCHBOARD_API_KEY).`;

/** A command that takes no argument and serves until stopped; its module loads only when it runs. */
function serverCommand(name: string, summary: string, about: string, run: (io: CliOutput) => Promise<number>): CliCommand {
  return {
    name,
    summary,
    usage: `usage: switchboard ${name}\n\n${about}`,
    run: async (args, io) => {
      if (args.length) throw new UsageError(`unexpected argument: ${args[0]}`);
      return run(io);
    },
  };
}

/** The command table: `switchboard <name> ...`; `switchboard --help` lists it in this order. */
const COMMANDS: CliCommand[] = [
  serverCommand(
    'start',
    'run the gateway in this process (like npm start); settings from the environment and .env',
    'Runs the gateway on PORT with its state under DATA_DIR until SIGTERM or SIGINT (docs/platform/configuration.md).',
    async () => {
      await import('../main.js');
      return 0;
    },
  ),
  INDEX_COMMAND,
  SEARCH_COMMAND,
  KEYS_COMMAND,
  FAX_COMMAND,
  {
    name: 'plugins',
    summary: 'new | lint | test | list | pack | sign | verify: write, check, list, pack and sign plugins',
    usage: PLUGINS_USAGE,
    // Each verb loads its module when it runs: a CLI process pays for the one command it runs.
    run: async (args, io) => {
      const [verb, ...rest] = args;
      if (verb === 'new') return pluginsNew(rest, io);
      if (verb === 'lint') return pluginsLint(rest, io);
      if (verb === 'test') return pluginsTest(rest, io);
      if (verb === 'list') return listPlugins(rest, io);
      const artifacts = () => import('./plugins-artifact-commands.js');
      if (verb === 'pack') return (await artifacts()).pluginsPack(rest, io);
      if (verb === 'sign') return (await artifacts()).pluginsSign(rest, io);
      if (verb === 'verify') return (await artifacts()).pluginsVerify(rest, io);
      if (verb === 'install') return (await artifacts()).pluginsInstall(rest, io);
      if (verb === 'versions') return (await artifacts()).pluginsVersions(rest, io);
      if (verb === 'rollback') return (await artifacts()).pluginsRollback(rest, io);
      throw new UsageError(verb === undefined ? 'plugins needs new, lint, test, list, pack, sign, verify, install, versions or rollback' : `unknown plugins command: ${verb}`);
    },
  },
  SDK_COMMAND,
  serverCommand(
    'judge-server',
    'run the self-hosted judge server on loopback (SELFHOSTED_HTTP_PORT)',
    'Serves the self-hosted judge on 127.0.0.1:SELFHOSTED_HTTP_PORT until SIGTERM or SIGINT (docs/workbench/judge.md).',
    async (io) => (await import('./judge-server.js')).runJudgeServer(io),
  ),
  serverCommand(
    'mcp',
    'the MCP server over stdio, its tools calling the gateway at SWITCHBOARD_URL (docs/mcp.md)',
    'Serves the MCP tools over stdio for a desktop client, built from the /openapi.json of the gateway at\nSWITCHBOARD_URL (default http://127.0.0.1:8080) with the key in SWITCHBOARD_API_KEY (docs/mcp.md).',
    async (io) => (await import('../mcp/mcp-stdio.js')).runMcpStdio(io),
  ),
  {
    name: 'lab',
    summary: 'run <rows.json> | retry <id>: judge grounded rows with the lab of a running gateway',
    usage: LAB_USAGE,
    run: async (args, io) => (await import('./lab.js')).runLab([args[0] ?? '', ...args.slice(1)], io),
  },
  {
    name: 'eval',
    summary: 'ranking quality of code search on a golden set (--golden <file> [--repo R])',
    usage: EVAL_USAGE,
    // Loaded on demand: the gateway (database, kernel) is only needed by this command.
    run: (args, io) => evalCommand(args, io, async () => (await import('./eval-host.js')).openGatewayEvalHost()),
  },
];

function hostVersion(): string {
  return findHostPackage(import.meta.url).version;
}

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length)) + 2;
  return `usage: switchboard <command> [options]   (switchboard <command> --help for its options)

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}${c.summary}`).join('\n')}

  --help, --version
exit codes: 0 ok, 1 the task failed (a gateway error, a manifest error, a failed case), 2 usage error`;
}

/** The switchboard command line; resolves to the process exit code. */
export async function main(argv: string[], io: CliOutput = consoleOutput): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined) {
    io.err(usage());
    return 2;
  }
  if (name === '--help' || name === '-h' || name === 'help') {
    io.out(usage());
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.out(hostVersion());
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const near = COMMANDS.find((c) => c.name.startsWith(name.slice(0, 2)));
    io.err(`switchboard: unknown command "${name}"${near ? ` (did you mean "${near.name}"?)` : ''}; switchboard --help lists the commands`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    io.out(command.usage);
    return 0;
  }
  try {
    return await command.run(args, io);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err(`switchboard ${name}: ${err.message}\n\n${command.usage}`);
    return 2;
  }
}

async function pluginsNew(args: string[], io: CliOutput): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { dir: { type: 'string' }, sdk: { type: 'string' } });
  const [kind, id, ...extra] = positionals;
  if (!kind || !id || extra.length) throw new UsageError('plugins new needs a kind and an id');
  const { isProviderKind, scaffoldPlugin, sdkDependency } = await import('./plugin-scaffold.js');
  if (!isProviderKind(kind)) throw new UsageError(`unknown kind "${kind}" (kinds: ${PROVIDER_KINDS.join(', ')})`);
  const host = findHostPackage(import.meta.url);
  const target = path.resolve(values.dir ?? id);
  // --sdk names the SDK tarball (or a version range); by default the one `sdk pack` wrote here.
  const sdk = values.sdk === undefined ? sdkDependency(target, process.cwd(), host.version) : existsSync(values.sdk) ? `file:${path.relative(target, path.resolve(values.sdk)).split(path.sep).join('/')}` : values.sdk;
  const hostDev = (JSON.parse(readFileSync(path.join(host.root, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> }).devDependencies ?? {};
  try {
    const files = await scaffoldPlugin({ kind, id, dir: target, hostVersion: host.version, sdk, toolchain: { typescript: hostDev.typescript ?? '*', '@types/node': hostDev['@types/node'] ?? '*' } });
    io.out(`wrote ${target}:`);
    for (const file of files) io.out(`  ${file}`);
    io.out(`@switchboard/sdk: ${sdk}${sdk.startsWith('file:') ? '' : '   (no SDK tarball here: run `switchboard sdk pack` in this folder first, or pass --sdk <tgz>)'}`);
    io.out(`next: cd ${path.relative(process.cwd(), target) || '.'} && npm install && npm test   (npm run lint checks types and the manifest)`);
    return 0;
  } catch (err) {
    io.err(`switchboard: ${(err as Error).message}`);
    return 1;
  }
}

async function pluginsLint(args: string[], io: CliOutput): Promise<number> {
  const json = args.includes('--json');
  const unknownFlag = args.find((a) => a.startsWith('--') && a !== '--json');
  const files = args.filter((a) => !a.startsWith('--'));
  if (unknownFlag || files.length === 0) {
    throw new UsageError(unknownFlag ? `unknown option: ${unknownFlag}` : 'plugins lint needs a manifest file');
  }
  let hostVersion: string;
  try {
    hostVersion = findHostPackage(import.meta.url).version;
  } catch (error) {
    io.err(`switchboard: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const { formatLintResult, lintManifestFiles } = await import('./plugins-lint.js');
  const results = await lintManifestFiles(files, hostVersion);
  if (json) io.out(JSON.stringify(results, null, 2));
  else for (const result of results) for (const line of formatLintResult(result)) io.out(line);
  return results.every((r) => r.ok) ? 0 : 1;
}

async function pluginsTest(args: string[], io: CliOutput): Promise<number> {
  const dirs: string[] = [];
  let settings: Record<string, unknown> | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--settings') {
      try {
        const parsed = JSON.parse(args[++i] ?? '') as unknown;
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
        settings = parsed as Record<string, unknown>;
      } catch {
        throw new UsageError('--settings needs a JSON object');
      }
    } else if (arg.startsWith('--')) {
      throw new UsageError(`unknown option: ${arg}`);
    } else dirs.push(arg);
  }
  if (dirs.length !== 1) throw new UsageError('plugins test needs one plugin folder');
  try {
    const host = findHostPackage(import.meta.url);
    // This file is dist/host/cli/main.js: the build root is two levels up.
    const buildRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const { testPluginFolder } = await import('./plugins-test.js');
    const result = await testPluginFolder({ dir: dirs[0]!, hostVersion: host.version, roots: { packageRoot: host.root, buildRoot }, ...(settings ? { settings } : {}), out: io.out });
    return result.failed === 0 && result.passed > 0 ? 0 : 1;
  } catch (error) {
    io.err(`switchboard: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
