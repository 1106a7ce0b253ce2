import { createRequire } from 'node:module';
import type * as KyselyModule from 'kysely';

/**
 * Kysely's values, from its CommonJS build: Node 20 loads its 262 modules faster by one
 * synchronous require than as ES modules, each linked asynchronously (about 50 ms of every start
 * on this machine's 2 cores). Every value import of kysely goes through here, so the process has
 * one copy of its classes; types still come from 'kysely' itself.
 */
const kysely = createRequire(import.meta.url)('kysely') as typeof KyselyModule;

export const { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } = kysely;
export type Kysely<DB> = KyselyModule.Kysely<DB>;
