import type { Kysely } from 'kysely';
import { openDatabase, type OpenedDatabase } from '../../host/platform/db/database.js';
import type { PlatformTables } from '../../host/platform/db/schema.js';
import type { FaxTables } from '../../host/surfaces/fax/fax-tables.js';
import type { SearchTables } from '../../host/surfaces/search/search-tables.js';
import type { WorkbenchTables } from '../../host/surfaces/workbench/workbench-tables.js';
// The surfaces' migrations, in the gateway's order (SURFACES in host/surfaces/gateway.ts), without
// loading the surfaces themselves: a database test then skips the gateway's 1,200 modules.
import { FAX_MIGRATIONS } from '../../host/surfaces/fax/fax-migrations.js';
import { SEARCH_MIGRATIONS } from '../../host/surfaces/search/search-migrations.js';
import { WORKBENCH_MIGRATIONS } from '../../host/surfaces/workbench/workbench-migrations.js';

/** Every table of the gateway: the platform's and each surface's. */
export type GatewayTables = PlatformTables & FaxTables & SearchTables & WorkbenchTables;

export type GatewayDatabase = Omit<OpenedDatabase, 'db'> & { db: Kysely<GatewayTables> };

/** The database a gateway opens: the platform's migrations and every surface's, every table typed. */
export async function openGatewayDatabase(options: Omit<Parameters<typeof openDatabase>[0], 'migrations'>): Promise<GatewayDatabase> {
  const opened = await openDatabase({ ...options, migrations: [FAX_MIGRATIONS, SEARCH_MIGRATIONS, WORKBENCH_MIGRATIONS] });
  return Object.assign(opened, { db: opened.db.withTables<FaxTables & SearchTables & WorkbenchTables>() });
}

/** A running gateway's database with every table typed. */
export function gatewayDb(gateway: { database: OpenedDatabase }): Kysely<GatewayTables> {
  return gateway.database.db.withTables<FaxTables & SearchTables & WorkbenchTables>();
}
