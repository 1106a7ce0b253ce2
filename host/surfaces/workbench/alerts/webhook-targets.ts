import { createHash } from 'node:crypto';
import type { z } from 'zod';
import { alertReceiverUrlProblem } from '../../../../core/declarative/alert-sink.js';
import { builtInDefaultOf } from '../../../platform/plugins/built-in-manifests.js';

/** A WEBHOOK_TARGETS URL: an instance of the default alert sink, with the URL as its `url` setting. */
export interface WebhookTarget {
  /** The instance's plugin id, `<default sink>-<12 hex of sha256(url)>`: names the URL without revealing it (URLs are secrets). */
  pluginId: string;
  /** Its alert target id, `plugin:<pluginId>`, as in the outbox, logs and responses. */
  id: string;
  url: URL;
}

/** The plugin id of the instance that delivers to a WEBHOOK_TARGETS URL (the hash the `webhook:<hash>` ids of earlier versions had). */
export function webhookInstanceId(url: string): string {
  return `${builtInDefaultOf('alert-sink')}-${createHash('sha256').update(url).digest('hex').slice(0, 12)}`;
}

/** The alert target id of a WEBHOOK_TARGETS URL: `plugin:` and its instance's id. */
export function webhookTargetId(url: string): string {
  return `plugin:${webhookInstanceId(url)}`;
}

/**
 * The one rule for WEBHOOK_TARGETS, for every write path and for delivery: the rule of every
 * alert receiver (https only, or http on a loopback host when ALERT_ALLOW_HTTP_LOOPBACK allows it). Refused entries come back as
 * problems, named by id, never by URL.
 */
export function parseWebhookTargets(raw: string | undefined, allowHttpLoopback: boolean): { targets: WebhookTarget[]; problems: string[] } {
  const targets: WebhookTarget[] = [];
  const problems: string[] = [];
  for (const entry of (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const pluginId = webhookInstanceId(entry);
    const id = `plugin:${pluginId}`;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      problems.push(`${id}: not a URL`);
      continue;
    }
    const problem = alertReceiverUrlProblem(url, allowHttpLoopback);
    if (problem) {
      problems.push(`${id}: ${problem}`);
      continue;
    }
    if (!targets.some((t) => t.id === id)) targets.push({ pluginId, id, url });
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
export function checkWebhookLoopback(config: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const raw = config.WEBHOOK_TARGETS;
  if (typeof raw !== 'string' || !raw || parseWebhookTargets(raw, true).problems.length) return;
  const { problems } = parseWebhookTargets(raw, config.ALERT_ALLOW_HTTP_LOOPBACK === true);
  if (problems.length) ctx.addIssue({ code: 'custom', path: ['WEBHOOK_TARGETS'], message: `refused: ${problems.join('; ')}` });
}
