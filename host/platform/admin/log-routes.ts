import type { Response } from 'express';
import { z } from 'zod';
import type { AuditLog } from '../audit/audit-log.js';
import type { DatabaseAuditSink } from '../audit/db-sink.js';
import type { HttpApi } from '../http/api.js';

const ADMIN = { scope: 'admin', administrative: true } as const;
const EventName = z.string().regex(/^[a-z_]{1,64}$/, 'an event name is lowercase letters and underscores');
export const AuditRecordSchema = z.object({ id: z.number().int(), ts: z.string(), event: z.string() }).catchall(z.unknown());

/** Open /admin/logs/tail streams; ended when the gateway closes so the drain does not wait. */
export class LogTails {
  private readonly open = new Set<Response>();
  add(res: Response): void {
    this.open.add(res);
    res.once('close', () => this.open.delete(res));
  }
  closeAll(): void {
    for (const res of this.open) res.end();
    this.open.clear();
  }
}

export function registerAdminLogRoutes(api: HttpApi, deps: { audit: AuditLog; sink: DatabaseAuditSink; tails: LogTails }): void {
  const routes = api.group({ tags: ['admin'], access: ADMIN });

  routes.route(
    {
      method: 'get',
      path: '/admin/logs',
      summary: 'Recent audit records (newest first) from the audit_events table',
      description: 'Records are kept while AUDIT_LOG_ENABLED is true (the default).',
      query: z.object({
        event: EventName.optional(),
        limit: z.coerce.number().int().min(1).max(1000).default(100),
        before: z.coerce.number().int().min(1).optional().describe('Only records with id below this (paging)'),
      }),
      responses: { 200: { description: 'Records', schema: z.object({ records: z.array(AuditRecordSchema) }) } },
    },
    async ({ query }) => {
      await deps.audit.flush();
      const rows = await deps.sink.recent({ event: query.event, limit: query.limit, before: query.before });
      return { records: rows.map((r) => ({ id: r.id, ...r.record })) };
    },
  );

  routes.route(
    {
      method: 'get',
      path: '/admin/logs/tail',
      summary: 'Server-sent events: each new audit record as `event: audit`, heartbeats as comments',
      query: z.object({
        event: EventName.optional(),
        heartbeat_seconds: z.coerce.number().int().min(1).max(300).default(15),
      }),
      responses: { 200: { description: 'text/event-stream of audit records', contentType: 'text/event-stream' } },
    },
    ({ query, req, res }) => {
      res.status(200);
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('X-Accel-Buffering', 'no');
      res.flushHeaders();
      res.write(': tail open\n\n');
      const unsubscribe = deps.audit.subscribe((record) => {
        if (query.event && record.event !== query.event) return;
        res.write(`event: audit\ndata: ${JSON.stringify(record)}\n\n`);
      });
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), query.heartbeat_seconds * 1000);
      heartbeat.unref();
      deps.tails.add(res);
      return new Promise<void>((resolve) => {
        const done = () => {
          clearInterval(heartbeat);
          unsubscribe();
          resolve();
        };
        req.once('close', done);
        res.once('close', done);
      });
    },
  );
}
