import type { Kysely } from 'kysely';
import type { WorkbenchTables } from '../../host/surfaces/workbench/workbench-tables.js';
import { until } from './gateway.js';

/**
 * Resolves once the alert outbox is drained: no notice waits for delivery and no instance holds
 * one. Evaluation enqueues before it returns, so after a tick and this, a receiver's count of
 * notices is settled ("delivered once" is checked against the event, not after a sleep).
 */
export async function alertOutboxDrained(db: Kysely<WorkbenchTables>, timeoutMs = 20_000): Promise<void> {
  await until(
    async () => {
      const waiting = await db
        .selectFrom('alert_deliveries')
        .select('id')
        .where((eb) => eb.or([eb('state', '=', 'pending'), eb('lease_owner', 'is not', null)]))
        .limit(1)
        .execute();
      return waiting.length === 0;
    },
    timeoutMs,
    50,
  );
}
