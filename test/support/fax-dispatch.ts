import type { Kysely } from 'kysely';
import type { FaxTables } from '../../host/surfaces/fax/fax-tables.js';
import { until } from './gateway.js';

/**
 * Resolves once none of the jobs `ids` (every job without it) can be sent again: each was handed to its provider
 * (`accepted`) or is final (`done`), and no instance holds its lease. From then on a provider's
 * count of sends is settled, so "sent once" is checked against the event, not after a sleep.
 */
export async function dispatchSettled(db: Kysely<FaxTables>, ids?: string[], timeoutMs = 20_000): Promise<void> {
  await until(
    async () => {
      let open = db.selectFrom('fax_jobs').select('id');
      if (ids) open = open.where('id', 'in', ids);
      const rows = await open
        .where((eb) => eb.or([eb('dispatch_state', 'not in', ['accepted', 'done']), eb('lease_owner', 'is not', null)]))
        .limit(1)
        .execute();
      return rows.length === 0;
    },
    timeoutMs,
    50,
  );
}
