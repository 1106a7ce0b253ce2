import { z } from 'zod';
import { envOnly, secret } from '../../../../core/sdk/settings.js';
import { DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT } from '../config-files.js';
import { backendId, decimal, integer, flag, text, optionalText, pluginId, emptyAsUnset, visibleToPlugins } from './field-kinds.js';

/** Configuration keys of the gateway process: port, data directory, logging, storage, cleanup, admin. */
export const HostKeys = {
  PORT: integer(0, 65535).default(DEFAULT_PORT).describe('TCP port the gateway listens on (0 picks a free port).'),
  HOST: text().default(DEFAULT_HOST).describe('Address the gateway binds to.'),
  DATA_DIR: envOnly(text().default(DEFAULT_DATA_DIR).describe('Directory for the SQLite database, artifacts and the default config files.')),
  PUBLIC_API_URL: z
    .preprocess(emptyAsUnset, z.url().optional())
    .describe('Public base URL of the gateway, used in links handed to outside callers (webhooks, PDF tokens).'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('Minimum level of the log.'),
  LOG_FORMAT: z
    .enum(['auto', 'json', 'pretty'])
    .default('auto')
    .describe('Log format: `json` (one JSON object a line, for collectors), `pretty` (one readable line an event), `auto` (pretty when stdout is a terminal, else json).'),
  DATABASE_URL: visibleToPlugins(secret(
    optionalText().describe('PostgreSQL URL (postgres://...) for shared state; unset uses the SQLite file under DATA_DIR. Plugins that declare DATABASE_URL among their settings variables see this value too (a retrieval backend that keeps its index in the same database). Secret: it may hold a password.'),
  )),
  STORAGE_BACKEND: backendId('storage', 'Plugin id of the storage provider for artifacts.'),
  REFUSED_BODY_DISCARD_MB: integer(0, 4096)
    .default(64)
    .describe('How much of a refused request\'s body (over a size limit, the wrong Content-Type) the gateway reads and discards before it answers with `Connection: close`, so that every client (Node fetch, Python requests, curl) reads the 413 or 415 instead of a broken connection; past it the answer goes out and the connection is cut.'),
  CLUSTER_LEASE_SECONDS: decimal(0.2, 3600)
    .default(30)
    .describe('Seconds a lease of once-per-cluster work (cleanup, alert evaluation, fax reconciliation) lasts without renewal: how long after an instance dies another takes its share of that work over. The holder renews at a third of it.'),
  CONFIG_SYNC_SECONDS: decimal(0.1, 3600)
    .default(5)
    .describe('With PostgreSQL: seconds between checks of the shared configuration row, so a change saved through any instance applies on every instance within this time, without a restart.'),
  JSON_MAX_DEPTH: integer(8, 10_000)
    .default(64)
    .describe('How deeply arrays and objects may nest in a JSON body (API routes, JSON-RPC messages to /mcp); a deeper one is refused 400 `json_too_deep` before it is parsed, so one request cannot build a huge object graph.'),
  MAX_FILE_SIZE_MB: integer(1).default(10).describe('Largest accepted upload, in megabytes.'),
  ADMIN_ALLOW_RESTART: flag().default(false).describe('Allow POST /admin/restart: the gateway answers 202, drains and exits with code 0 (a supervisor starts it again).'),
  ADMIN_SETTINGS_PERSIST_PATH: envOnly(optionalText().describe('File POST /admin/settings/persist writes the effective settings to, as an env file (e.g. /faxdata/service.env); unset turns persist off (403).')),
  WEB_DIST_DIR: envOnly(optionalText().describe("Directory of the built console (web/dist): served at / and probed by GET /api/dev/status (its index.html); unset means the package's web/dist.")),
};
