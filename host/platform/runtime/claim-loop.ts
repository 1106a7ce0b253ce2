import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { RecurringTask, type Cadence } from './recurring-task.js';

/** A durable outbox as the loop sees it: due rows claimed under a lease for an owner. */
export interface ClaimableOutbox<Row> {
  claim(owner: string, limit: number, leaseMs: number): Promise<Row[]>;
}

/**
 * The loop of one durable outbox (fax status events, inbound sinks, workbench alerts): on its
 * cadence, or at once when woken, claims due rows with a lease under this loop's owner id and
 * hands each batch to `handle`, until none is due. A stop lets the batch in hand finish; rows it
 * did not settle are claimed again when their lease ends (here or on another instance).
 */
export class ClaimLoop<Row> {
  readonly owner: string;
  private readonly loop: RecurringTask;
  private running = false;

  constructor(deps: { name: string; outbox: ClaimableOutbox<Row>; batch: number; leaseMs: number; cadence: Cadence; logger: Pick<Logger, 'error'>; handle: (rows: Row[], owner: string) => Promise<void> }) {
    const owner = (this.owner = `${deps.name}-${randomUUID()}`);
    this.loop = new RecurringTask({
      cadence: deps.cadence,
      task: async () => {
        while (this.running) {
          const rows = await deps.outbox.claim(owner, deps.batch, deps.leaseMs);
          if (!rows.length) return;
          await deps.handle(rows, owner);
        }
      },
      onError: (err) => deps.logger.error({ err: (err as Error).message }, `${deps.name} delivery failed; next run retries`),
    });
  }

  start(): void {
    this.running = true;
    this.loop.start();
    this.loop.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop.stop();
  }

  wake(): void {
    this.loop.wake();
  }
}
