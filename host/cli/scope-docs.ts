import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createGateway } from '../surfaces/gateway.js';
import { renderScopeTable, withScopeTable } from '../platform/auth/scope-table.js';
import { runSectionGenerator } from './generated-section.js';

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
runSectionGenerator(import.meta.url, currentRoutes, (document, table) => withScopeTable(document, table));
