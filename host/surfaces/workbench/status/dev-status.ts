import { stat } from 'node:fs/promises';
import path from 'node:path';
import { isIP } from 'node:net';
import { z } from 'zod';
import { refusedAddressReason } from '../../../../core/kernel/outbound-address.js';
import type { HttpApi } from '../../../platform/http/api.js';
import type { WorkbenchConfig } from '../workbench-settings.js';

const PROBE_TIMEOUT_MS = 1000;

export const DevStatus = z.object({
  backend: z.object({ running: z.literal(true), pid: z.number().int(), uptime_s: z.number() }),
  frontend: z.object({
    running: z.boolean(),
    frontend_mode: z.enum(['dev_server', 'built_bundle', 'absent']),
    dev_server_url: z.string(),
    frontend_bundle_built_at: z.string().nullable(),
  }),
});

/** A URL on this machine: `localhost`, or a loopback IP literal (never a name like `127.evil.example`). */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  return isIP(host) !== 0 && (refusedAddressReason(host)?.startsWith('loopback') ?? false);
}

/** Whether anything answers HTTP at the configured dev server (any status counts as up). */
async function devServerAnswers(raw: string): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  // The operator's setting, never a caller's: still, only this machine is probed.
  if (!isLoopbackUrl(url) || (url.protocol !== 'http:' && url.protocol !== 'https:')) return false;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS), redirect: 'manual' });
    await res.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** GET /api/dev/status: the two host processes, backend (this one) and the web frontend. */
export function registerDevStatusRoute(api: HttpApi, deps: { config: WorkbenchConfig; packageRoot: string }): void {
  api.route(
    {
      method: 'get',
      path: '/api/dev/status',
      summary: 'Host process status: backend and frontend (dev server, built bundle or absent)',
      description:
        'frontend_mode is dev_server when FRONTEND_DEV_URL answers, built_bundle when no dev server answers but WEB_DIST_DIR/index.html exists (frontend_bundle_built_at is its mtime), absent otherwise.',
      tags: ['workbench: status'],
      access: 'loopback',
      responses: { 200: { description: 'Process status', schema: DevStatus } },
    },
    async () => {
      const devUrl = deps.config.get('FRONTEND_DEV_URL');
      const distDir = deps.config.get('WEB_DIST_DIR') ?? path.join(deps.packageRoot, 'web', 'dist');
      const dev = await devServerAnswers(devUrl);
      let builtAt: string | null = null;
      if (!dev) {
        try {
          const info = await stat(path.join(distDir, 'index.html'));
          if (info.isFile()) builtAt = info.mtime.toISOString();
        } catch {
          builtAt = null;
        }
      }
      const mode = dev ? 'dev_server' : builtAt ? 'built_bundle' : 'absent';
      return {
        backend: { running: true as const, pid: process.pid, uptime_s: Math.round(process.uptime()) },
        frontend: { running: dev, frontend_mode: mode, dev_server_url: devUrl, frontend_bundle_built_at: builtAt },
      };
    },
  );
}
