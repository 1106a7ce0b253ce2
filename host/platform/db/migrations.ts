import type { Kysely, Migration, MigrationProvider } from 'kysely';
import { sql } from './kysely-runtime.js';

/**
 * A migration of one owner (the platform, a surface). `replaces` names the migration of the
 * single list every owner shared before migrations moved to their owners: a database that ran
 * that one has run this one too (host/platform/db/migrations.ts adopts it under its new name).
 */
export interface DeclaredMigration extends Migration {
  replaces?: string;
}

/** An owner's migrations by name (`0001_fax_jobs`), run in name order and recorded as `<owner>/<name>`. */
export interface OwnedMigrations {
  owner: string;
  migrations: Record<string, DeclaredMigration>;
}

/** Every owner's migrations under their recorded names; an owner or a name twice is refused. */
export function mergeMigrations(owned: readonly OwnedMigrations[]): Record<string, DeclaredMigration> {
  const merged: Record<string, DeclaredMigration> = {};
  for (const { owner, migrations } of owned) {
    if (!/^[a-z][a-z0-9-]*$/.test(owner)) throw new Error(`migration owner "${owner}" must be a lowercase word`);
    for (const [name, migration] of Object.entries(migrations)) {
      const full = `${owner}/${name}`;
      if (merged[full]) throw new Error(`migration ${full} is declared twice`);
      merged[full] = migration;
    }
  }
  return merged;
}

export function migrationProviderOf(migrations: Record<string, DeclaredMigration>): MigrationProvider {
  return { getMigrations: async () => migrations };
}

/**
 * Records under their owners' names the migrations a database ran when there was one list
 * (`0002_inbound_keys_audit` became `platform/0001_api_keys_audit` and `fax/0002_inbound_faxes`),
 * with the time they ran, then forgets the old names. Idempotent, so instances starting at once
 * on one PostgreSQL reach the same rows. Runs before Kysely's migrator, which refuses names it
 * does not know.
 */
export async function adoptReplacedMigrations(db: Kysely<any>, migrations: Record<string, DeclaredMigration>): Promise<void> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((t) => t.name === 'kysely_migration')) return;
  const { rows } = await sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration`.execute(db);
  const ranAt = new Map(rows.map((r) => [r.name, r.timestamp]));
  const adopted: Array<{ name: string; timestamp: string }> = [];
  const replaced = new Set<string>();
  for (const [name, migration] of Object.entries(migrations)) {
    const old = migration.replaces;
    if (!old || !ranAt.has(old)) continue;
    replaced.add(old);
    if (!ranAt.has(name)) adopted.push({ name, timestamp: ranAt.get(old)! });
  }
  if (!replaced.size) return;
  await db.transaction().execute(async (trx) => {
    for (const row of adopted) await trx.insertInto('kysely_migration').values(row).onConflict((oc) => oc.column('name').doNothing()).execute();
    await trx.deleteFrom('kysely_migration').where('name', 'in', [...replaced]).execute();
  });
}
