/** What a receiver passes to check one delivery of a Switchboard status event. */
export interface WebhookVerification {
  /** The raw request body, exactly as received (bytes or the UTF-8 text): not re-serialised JSON. */
  body: string | Uint8Array;
  /** The X-Switchboard-Signature header. */
  signature: string | null | undefined;
  /** The subscription's secret (shown once at POST /webhooks/subscriptions), or the gateway's WEBHOOK_SIGNING_SECRET for callback_url. */
  secret: string;
  /** Seconds a signature stays acceptable either side of now (the replay window); default 300. */
  toleranceSeconds?: number;
  /** Now, in unix seconds (tests). */
  now?: number;
}

export type WebhookVerdict = { ok: true; timestamp: number } | { ok: false; reason: 'missing_signature' | 'malformed_signature' | 'outside_replay_window' | 'signature_mismatch' };

const encoder = new TextEncoder();

/**
 * Checks `X-Switchboard-Signature: t=<unix>,v1=<hex HMAC-SHA256 over "<t>.<body>">` with Web Crypto
 * (Node 20 and browsers alike), in constant time, and that `t` is within the replay window.
 * A receiver still deduplicates on X-Switchboard-Event-Id: a redelivery is signed afresh.
 */
export async function verifyWebhookSignature(input: WebhookVerification): Promise<WebhookVerdict> {
  if (!input.signature) return { ok: false, reason: 'missing_signature' };
  const parts = new Map<string, string[]>();
  for (const item of input.signature.split(',')) {
    const at = item.indexOf('=');
    if (at <= 0) continue;
    const key = item.slice(0, at).trim();
    parts.set(key, [...(parts.get(key) ?? []), item.slice(at + 1).trim()]);
  }
  const t = parts.get('t')?.[0];
  const candidates = (parts.get('v1') ?? []).filter((v) => /^[0-9a-f]{64}$/.test(v));
  if (!t || !/^\d{1,12}$/.test(t) || !candidates.length) return { ok: false, reason: 'malformed_signature' };
  const timestamp = Number(t);
  const now = input.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > (input.toleranceSeconds ?? 300)) return { ok: false, reason: 'outside_replay_window' };
  const body = typeof input.body === 'string' ? encoder.encode(input.body) : input.body;
  const signed = new Uint8Array(t.length + 1 + body.length);
  signed.set(encoder.encode(`${t}.`), 0);
  signed.set(body, t.length + 1);
  const key = await crypto.subtle.importKey('raw', encoder.encode(input.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, signed));
  return candidates.some((hex) => sameBytes(expected, hex)) ? { ok: true, timestamp } : { ok: false, reason: 'signature_mismatch' };
}

/** Constant-time comparison of a MAC with its hex spelling. */
function sameBytes(mac: Uint8Array, hex: string): boolean {
  let diff = mac.length ^ hex.length / 2;
  for (let i = 0; i < mac.length; i++) diff |= mac[i]! ^ parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return diff === 0;
}
