import { findHostPackage } from './package-root.js';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatLintResult, lintManifestFiles } from './plugins-lint.js';
import { evalCommand, EVAL_USAGE } from './eval-command.js';
import { testPluginFolder } from './plugins-test.js';

export const USAGE = `usage: switchboard <command>

commands:
  plugins lint [--json] <file...>   validate plugin manifests as this host would load them
  judge-server                      run the self-hosted judge server on loopback (SELFHOSTED_HTTP_PORT)
  lab run <rows.json> | lab retry <id>
                                    judge grounded rows with the synthetic-data lab of a running gateway
  eval --golden <file> [--repo R]   ranking quality of code search on a golden set
                                    (switchboard eval --help for every option)
  plugins test [--settings <json>] <dir>
                                    load the plugin folder <dir> through the host's loader and
                                    run the conformance suite of every kind it provides
  mcp                               the MCP server over stdio, its tools calling the gateway at
                                    SWITCHBOARD_URL (default http://127.0.0.1:8080) with
                                    SWITCHBOARD_API_KEY (docs/mcp.md)
  help                              show this text

exit codes: 0 ok, 1 a manifest has errors or a conformance case failed, 2 usage error`;

export interface CliOutput {
  out(line: string): void;
  err(line: string): void;
}

const consoleOutput: CliOutput = {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
};

/** The switchboard command line; resolves to the process exit code. */
export async function main(argv: string[], io: CliOutput = consoleOutput): Promise<number> {
  const [group, command, ...rest] = argv;
  if (group === 'plugins' && command === 'lint') return pluginsLint(rest, io);
  if (group === 'lab') return (await import('./lab.js')).runLab([command ?? '', ...rest], io);
  if (group === 'judge-server' && command === undefined) return (await import('./judge-server.js')).runJudgeServer(io);
  if (group === 'eval') {
    const args = argv.slice(1);
    if (args.includes('--help') || args.includes('-h')) {
      io.out(EVAL_USAGE);
      return 0;
    }
    // Loaded on demand: the gateway (database, kernel) is only needed by this command.
    return evalCommand(args, io, async () => (await import('./eval-host.js')).openGatewayEvalHost());
  }
  if (group === 'plugins' && command === 'test') return pluginsTest(rest, io);
  if (group === 'mcp' && command === undefined) return (await import('./mcp-stdio.js')).runMcpStdio(io);
  if (group === 'help' || group === '--help' || group === '-h') {
    io.out(USAGE);
    return 2;
  }
  io.err(group === undefined ? USAGE : `unknown command: ${argv.join(' ')}\n\n${USAGE}`);
  return 2;
}

async function pluginsLint(args: string[], io: CliOutput): Promise<number> {
  const json = args.includes('--json');
  const unknownFlag = args.find((a) => a.startsWith('--') && a !== '--json');
  const files = args.filter((a) => !a.startsWith('--'));
  if (unknownFlag || files.length === 0) {
    io.err(unknownFlag ? `unknown option: ${unknownFlag}\n\n${USAGE}` : USAGE);
    return 2;
  }
  let hostVersion: string;
  try {
    hostVersion = findHostPackage(import.meta.url).version;
  } catch (error) {
    io.err(`switchboard: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
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
        io.err(`--settings needs a JSON object\n\n${USAGE}`);
        return 2;
      }
    } else if (arg.startsWith('--')) {
      io.err(`unknown option: ${arg}\n\n${USAGE}`);
      return 2;
    } else dirs.push(arg);
  }
  if (dirs.length !== 1) {
    io.err(USAGE);
    return 2;
  }
  try {
    const host = findHostPackage(import.meta.url);
    // This file is dist/host/cli/main.js: the build root is two levels up.
    const buildRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const result = await testPluginFolder({ dir: dirs[0]!, hostVersion: host.version, roots: { packageRoot: host.root, buildRoot }, ...(settings ? { settings } : {}), out: io.out });
    return result.failed === 0 && result.passed > 0 ? 0 : 1;
  } catch (error) {
    io.err(`switchboard: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
