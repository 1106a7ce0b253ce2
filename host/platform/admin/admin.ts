import type { ConfigRegistry } from '../config/registry.js';
import type { Kernel } from '../../../core/kernel/kernel.js';
import type { Readiness } from '../health/readiness.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { DatabaseAuditSink } from '../audit/db-sink.js';
import type { OpenedDatabase } from '../db/database.js';
import type { Ports } from '../ports/ports.js';
import type { HttpApi } from '../http/api.js';
import { LogTails, registerAdminLogRoutes } from './log-routes.js';
import { registerAdminSettingsRoutes } from './settings-routes.js';
import { registerAdminStatusRoutes } from './status-routes.js';

export interface AdminDeps {
  config: ConfigRegistry;
  kernel: Kernel;
  readiness: Readiness;
  database: OpenedDatabase;
  ports: Ports;
  audit: AuditLog;
  auditSink: DatabaseAuditSink;
  version: string;
  authRequired: () => boolean;
  restart: () => Promise<void>;
}

/** The admin surface (every route `{scope: 'admin', administrative: true}`). Returns what close must end. */
export function registerAdmin(api: HttpApi, deps: AdminDeps): { closeStreams(): void } {
  const tails = new LogTails();
  registerAdminSettingsRoutes(api, deps);
  registerAdminStatusRoutes(api, deps);
  registerAdminLogRoutes(api, { audit: deps.audit, sink: deps.auditSink, tails });
  return { closeStreams: () => tails.closeAll() };
}
