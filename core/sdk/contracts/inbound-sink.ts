/**
 * The inbound-sink contract: hand one stored inbound fax to one target of its mailbox (an email
 * to the mailbox's recipients, say). The host keeps the delivery in a durable outbox and retries
 * it; a sink makes one attempt per call.
 */
export const INBOUND_SINK_CONTRACT = '1.0.0';

/** The fax as the mailbox's owners see it: numbers in full (the target belongs to the mailbox). */
export interface InboundSinkFax {
  id: string;
  mailbox: string;
  from: string | null;
  to: string | null;
  pages: number;
  received_at: string;
}

/**
 * The document, as the mailbox's target asked: `attach` carries the PDF itself, `link` a URL
 * that fetches it without a key until `expires_at` (a short-lived token).
 */
export type InboundSinkDocument =
  | { mode: 'attach'; filename: string; pdf: Buffer }
  | { mode: 'link'; filename: string; url: string; expires_at: string };

export interface InboundSinkDelivery {
  /** Stable across retries of this delivery: receivers drop duplicates by it. */
  delivery_id: string;
  fax: InboundSinkFax;
  /** Where the target sends it (email addresses for `email`), from the mailbox record. */
  recipients: string[];
  document: InboundSinkDocument;
}

export interface InboundSinkResult {
  ok: boolean;
  /** Retrying will not help (a recipient refused for good, a bad address): the host stops. */
  permanent?: boolean;
  /** Why it failed; shown in the delivery list, so never a secret. */
  detail?: string;
}

export interface InboundSinkProvider {
  /** One attempt; `signal` aborts when the host stops waiting (INBOUND_SINK_TIMEOUT_SECONDS). */
  deliver(delivery: InboundSinkDelivery, signal?: AbortSignal): Promise<InboundSinkResult>;
}
