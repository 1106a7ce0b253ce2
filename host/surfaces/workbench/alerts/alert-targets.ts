import { createHash } from 'node:crypto';

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
 * WEBHOOK_TARGETS as targets: https only, or http on a loopback host when the development flag
 * allows it. Refused entries come back as problems (named by id, never by URL).
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
        ? `${id}: plain http is refused${LOOPBACK.has(url.hostname) ? ' (set ALERT_ALLOW_HTTP_LOOPBACK=true for a local development receiver)' : ''}`
        : `${id}: only https URLs are allowed`,
    );
  }
  return { targets, problems };
}

/** A URL with everything after the host hidden, for an operator to recognise a target. */
export function maskTargetUrl(url: URL): string {
  return `${url.protocol}//${url.host}/***`;
}
