import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ConfigRegistry } from '../config/registry.js';
import type { PlatformTables } from '../db/schema.js';
import type { AuditLog } from './audit-log.js';
import { DatabaseAuditSink } from './db-sink.js';
import { createSyslogSink } from './syslog-sink.js';

/** Adds the database sink (always) and the syslog sink (AUDIT_LOG_SYSLOG) to `audit`. Read at start. */
export function installAuditSinks(audit: AuditLog, deps: { config: ConfigRegistry; db: Kysely<PlatformTables>; logger: Logger }): DatabaseAuditSink {
  const sink = new DatabaseAuditSink(deps.db);
  audit.addSink(sink);
  if (deps.config.get('AUDIT_LOG_SYSLOG')) {
    let warned = false;
    try {
      audit.addSink(
        createSyslogSink({
          host: deps.config.get('AUDIT_SYSLOG_HOST'),
          port: deps.config.get('AUDIT_SYSLOG_PORT'),
          socket: deps.config.get('AUDIT_SYSLOG_SOCKET'),
          onError: (message) => {
            if (!warned) deps.logger.warn({ problem: message }, 'audit syslog sink failing');
            warned = true;
          },
        }),
      );
    } catch (err) {
      deps.logger.error({ problem: (err as Error).message }, 'audit syslog sink refused');
    }
  }
  return sink;
}
