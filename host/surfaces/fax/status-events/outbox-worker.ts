import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { RecurringTask } from '../../../platform/runtime/recurring-task.js';
import type { DeliveryOutbox, DeliveryRow } from './delivery-outbox.js';

/**
 * The loop of one outbox channel: every `pauseMs` (or at once when woken) claims due rows with a
 * lease under this worker's owner id and hands each batch to `handle`, until none is due.
 */
export class OutboxWorker {
  readonly owner: string;
  private readonly loop: RecurringTask;
  private running = false;

  constructor(deps: { name: string; outbox: DeliveryOutbox; batch: number; leaseMs: number; pauseMs: () => number; logger: Pick<Logger, 'error'>; handle: (rows: DeliveryRow[], owner: string) => Promise<void> }) {
    const owner = (this.owner = `${deps.name}-${randomUUID()}`);
    this.loop = new RecurringTask({
      cadence: { pauseMs: deps.pauseMs },
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
