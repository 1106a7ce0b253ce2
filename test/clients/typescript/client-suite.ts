import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { createSwitchboardClient, type SwitchboardClient, type SwitchboardClientOptions } from '../../../clients/typescript/src/index.js';
import { startGateway, type TestGateway } from '../../support/gateway.js';

/** The API_KEY of the suite's gateway. */
export const SUITE_KEY = 'client-suite-key-6c0e';

/**
 * A real gateway for a whole test file (API_KEY set, no fax backend, quiet logs), started in the
 * suite's `before` and closed in its `after`; `client()` talks to it with the suite's key.
 */
export function gatewayForSuite(suite: { before(fn: () => unknown): void; after(fn: () => unknown): void }, env: Record<string, string> = {}) {
  let started: TestGateway | undefined;
  suite.before(async () => {
    started = await startGateway({ FAX_DISABLED: 'true', API_KEY: SUITE_KEY, LOG_LEVEL: 'warn', ...env }, { watch: false });
  });
  suite.after(() => started?.close());
  const gateway = () => {
    if (!started) throw new Error("the gateway starts in the suite's before hook");
    return started;
  };
  return {
    get gw(): TestGateway {
      return gateway();
    },
    client: (options: Partial<SwitchboardClientOptions> = {}): SwitchboardClient => createSwitchboardClient({ baseUrl: gateway().url, apiKey: SUITE_KEY, ...options }),
  };
}

/** A PNG of random pixels: it does not compress, so its size is about side * side * 3 bytes. */
export function noisePng(side: number): Promise<Buffer> {
  return sharp(randomBytes(side * side * 3), { raw: { width: side, height: side, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}
