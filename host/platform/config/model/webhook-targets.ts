import { createHash } from 'node:crypto';
import type { z } from 'zod';

/** A WEBHOOK_TARGETS URL as an alert target. */
export interface WebhookTarget {
  /** `webhook:<hash>`: names the URL without revealing it (URLs are secrets). */
  id: string;
  url: URL;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

/** The id a webhook URL is known by in the outbox, logs and responses. */
export function webhookTargetId(url: string): string {
  return `webhook:${createHash('sha256').update(url).digest('hex').slice(0, 12)}`;
}

/**
 * The one rule for WEBHOOK_TARGETS, for every write path and for delivery: https only, or http
 * on a loopback host when ALERT_ALLOW_HTTP_LOOPBACK allows it. Refused entries come back as
 * problems, named by id, never by URL.
 */
export function parseWebhookTargets(raw: string | undefined, allowHttpLoopback: boolean): { targets: WebhookTarget[]; problems: string[] } {
  const targets: WebhookTarget[] = [];
  const problems: string[] = [];
  for (const entry of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const id = webhookTargetId(entry);
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      problems.push(`${id}: not a URL`);
      continue;
    }
    if (url.protocol === 'https:' || (url.protocol === 'http:' && allowHttpLoopback && LOOPBACK.has(url.hostname))) {
      if (!targets.some((t) => t.id === id)) targets.push({ id, url });
      continue;
    }
    problems.push(
      url.protocol === 'http:'
        ? `${id}: plain http is refused${LOOPBACK.has(url.hostname) ? ' (set ALERT_ALLOW_HTTP_LOOPBACK=true in the environment for a local development receiver)' : ''}`
        : `${id}: only https URLs are allowed`,
    );
  }
  return { targets, problems };
}

/** The key's own check: every entry a URL the rule can accept (loopback http waits for the flag, checked with the whole config). */
export function checkWebhookTargets(raw: unknown, ctx: z.RefinementCtx): void {
  if (typeof raw !== 'string') return;
  const { problems } = parseWebhookTargets(raw, true);
  if (problems.length) ctx.addIssue({ code: 'custom', message: `refused: ${problems.join('; ')}` });
}

/** The check across keys: loopback http targets only with ALERT_ALLOW_HTTP_LOOPBACK. */
export function checkWebhookLoopback(config: { WEBHOOK_TARGETS?: string | undefined; ALERT_ALLOW_HTTP_LOOPBACK?: boolean }, ctx: z.RefinementCtx): void {
  const raw = config.WEBHOOK_TARGETS;
  if (!raw || parseWebhookTargets(raw, true).problems.length) return;
  const { problems } = parseWebhookTargets(raw, config.ALERT_ALLOW_HTTP_LOOPBACK === true);
  if (problems.length) ctx.addIssue({ code: 'custom', path: ['WEBHOOK_TARGETS'], message: `refused: ${problems.join('; ')}` });
}
