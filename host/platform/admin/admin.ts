import type { DatabaseAuditSink } from '../audit/db-sink.js';
import type { HttpApi } from '../http/api.js';
import { LogTails, registerAdminLogRoutes } from './log-routes.js';
import { registerAdminSettingsRoutes, type SettingsRouteDeps } from './settings-routes.js';
import { registerAdminStatusRoutes, type StatusRouteDeps } from './status-routes.js';

/** What the status and settings routes need, and the audit sink the log routes read. */
export interface AdminDeps extends StatusRouteDeps, SettingsRouteDeps {
  auditSink: DatabaseAuditSink;
}

/** The admin surface (every route `{scope: 'admin', administrative: true}`). Returns what close must end. */
export function registerAdmin(api: HttpApi, deps: AdminDeps): { closeStreams(): void } {
  const tails = new LogTails();
  registerAdminSettingsRoutes(api, deps);
  registerAdminStatusRoutes(api, deps);
  registerAdminLogRoutes(api, { audit: deps.audit, sink: deps.auditSink, tails });
  return { closeStreams: () => tails.closeAll() };
}
