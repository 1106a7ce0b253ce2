import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { createGateway } from '../surfaces/gateway.js';
import { renderScopeTable, withScopeTable } from '../platform/auth/scope-table.js';

/** The route table of a gateway built on a throwaway DATA_DIR (nothing listens). */
async function currentRoutes(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-scope-docs-'));
  const quiet = new Writable({ write: (_c, _e, cb) => cb() });
  try {
    const gateway = await createGateway({ env: { DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), LOG_LEVEL: 'silent' }, cwd: dataDir, logDestination: quiet, watch: false });
    try {
      // The webhook alias routes are added when the work starts.
      gateway.startWork();
      return renderScopeTable(gateway.api.routes);
    } finally {
      await gateway.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `node dist/host/cli/scope-docs.js` prints the table; `--write <file>` updates it in place.
async function main(args: string[]): Promise<void> {
  const table = await currentRoutes();
  const target = args[0] === '--write' ? args[1] : undefined;
  if (!target) {
    process.stdout.write(table);
    return;
  }
  const file = path.resolve(target);
  await writeFile(file, withScopeTable(await readFile(file, 'utf8'), table));
  process.stdout.write(`updated ${file}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
