import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createGateway, type SwitchboardGateway } from '../surfaces/gateway.js';

/**
 * Runs `read` on a gateway with default settings on a throwaway DATA_DIR (nothing listens), its
 * plugins loaded (the webhook alias routes are added then): what the generated docs are read from.
 */
export async function withThrowawayGateway<T>(read: (gateway: SwitchboardGateway) => T | Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchboard-docs-'));
  const quiet = new Writable({ write: (_c, _e, cb) => cb() });
  try {
    const gateway = await createGateway({ env: { DATA_DIR: dataDir, ENV_FILE: path.join(dataDir, 'none.env'), LOG_LEVEL: 'silent' }, cwd: dataDir, logDestination: quiet, watch: false });
    try {
      return await read(gateway);
    } finally {
      await gateway.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
