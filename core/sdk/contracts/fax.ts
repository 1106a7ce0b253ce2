/** The fax provider contract. Inside major 1 only optional members are added. */
export const FAX_CONTRACT = '1.3.0';

export const FAX_STATUSES = ['queued', 'in_progress', 'SUCCESS', 'FAILED', 'disabled'] as const;
export type FaxStatus = (typeof FAX_STATUSES)[number];

/** Which way a fax goes: sent by us (outbound) or received (inbound). */
export const FAX_DIRECTIONS = ['inbound', 'outbound'] as const;
export type FaxDirection = (typeof FAX_DIRECTIONS)[number];

/** The document of a job, as a provider sees it. */
export interface FaxDocument {
  /** Tokenized public URL of the job's PDF, for providers that download it themselves. */
  url: string;
  /** Page count of the PDF. */
  pages: number;
  /** The PDF bytes. */
  read(): Promise<Buffer>;
  /**
   * Stores a derived artifact (a fax TIFF, say) next to the job's PDF; it is removed with the
   * job's artifacts. `localPath` is set when storage is a local directory.
   */
  saveArtifact(name: string, bytes: Buffer): Promise<{ key: string; localPath?: string }>;
  /**
   * Renders the PDF as a fax TIFF (CCITT G4, 204x196 dpi) with the host's renderer and stores
   * it next to the PDF, like saveArtifact. For providers that dial out themselves (SIP, PBX).
   */
  renderTiff(options?: { paper?: 'letter' | 'a4' }): Promise<{ key: string; localPath?: string; pages: number }>;
}

export interface FaxSendRequest {
  /** Our job id: correlate callbacks and lookups with it. */
  jobId: string;
  /** Destination, E.164 (`+` and digits) or bare digits. */
  to: string;
  document: FaxDocument;
  /** PUBLIC_API_URL: base of callback URLs handed to the provider (no trailing slash). */
  publicBaseUrl: string;
  /**
   * Where the provider should post this job's status callback: the plugin's callback alias
   * declared in its manifest (`webhookAliases`) or else `/webhooks/<pluginId>/callback`, under
   * PUBLIC_API_URL, with `?job_id=`. Set by hosts from 0.1 on; absent, ask for no callback.
   */
  callbackUrl?: string;
  signal?: AbortSignal;
}

/**
 * Why a fax failed on the line rather than in its document: the far end was busy, did not
 * answer, or the call failed (congestion, a dropped line). Such a fax may go through on a redial.
 */
export const FAX_LINE_FAILURES = ['busy', 'no_answer', 'line_failure'] as const;
export type FaxLineFailure = (typeof FAX_LINE_FAILURES)[number];

/** What the provider says of a fax. */
export interface FaxProviderStatus {
  providerSid?: string;
  status: FaxStatus;
  pages?: number;
  error?: string;
  /**
   * With status FAILED only: the line failed (busy, no answer, line failure), so the host may
   * dial again by its retry policy (FAX_RETRY_MAX_ATTEMPTS). Absent: the failure is final. Since 1.2.0.
   */
  lineFailure?: FaxLineFailure;
  /** The provider's own status word, kept for diagnostics. */
  raw?: string;
}

export interface FaxSendResult extends FaxProviderStatus {
  providerSid: string;
}

/** How the host refers to a fax when it asks about it again. */
export interface FaxReference {
  jobId: string;
  to: string;
  /** Unset when a send timed out before the provider's id came back. */
  providerSid?: string;
  /** When the send was attempted: lookups by reference may narrow on it. */
  sentAt: Date;
}

/** Which webhook a request is: a status callback of an outbound fax, or a received fax. */
export type FaxWebhookKind = 'callback' | 'inbound';

/**
 * A provider webhook as received by the host, untouched. The host routes
 * `POST /webhooks/{pluginId}/callback` and `POST /webhooks/{pluginId}/inbound` (and the spec's
 * fixed paths, as aliases) to the plugin; it never reads the plugin's secrets.
 */
export interface FaxWebhookRequest {
  /** Which route received it: verification rules may differ (provider A signs both, B only inbound). */
  kind: FaxWebhookKind;
  /** The public URL the provider called (PUBLIC_API_URL + path + query), for URL-signing schemes. */
  url: string;
  rawBody: Buffer;
  contentType: string;
  /** Header names lowercased; the values of a repeated header are joined with ", ". */
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
}

/**
 * Where the host gets a received fax's document from. The host loads it only for a fax it has
 * not stored yet (receipt is idempotent on plugin id + providerId).
 */
export type FaxInboundDocument =
  | {
      /**
       * The host downloads it: only from `allowedHosts` (host or host:port, checked on every
       * redirect hop too), within MAX_FILE_SIZE_MB and INBOUND_MEDIA_TIMEOUT_SECONDS. The plugin
       * chooses the hosts from its own settings; an empty list answers 503 "no media host".
       */
      url: string;
      allowedHosts: readonly string[];
    }
  | {
      /**
       * The plugin reads it itself (a spool file it has checked), at most `maxBytes`; throw
       * WebhookRejectedError(413, ...) when it is larger.
       */
      read(maxBytes: number): Promise<Buffer>;
    };

/** A received fax as a provider reports it. */
export interface FaxInboundNotice {
  /** The provider's id of the fax (a PBX's uniqueid): a replay with the same id stores nothing. */
  providerId: string;
  from?: string | undefined;
  to?: string | undefined;
  /** The provider's status word as received (e.g. success, received). */
  status: string;
  /** Pages as the provider counts them (the stored PDF's own count wins). */
  pages?: number | undefined;
  document: FaxInboundDocument;
}

/** A status change reported by a provider (callback or pushed event). */
export interface FaxStatusUpdate extends FaxProviderStatus {
  jobId: string;
}

/** Topic of `ctx.events.emit` for providers that learn results out of band (AMI, ESL). */
export const FAX_STATUS_EVENT = 'fax.status';

export interface FaxProvider {
  /**
   * Sends a fax. Throws NotAcceptedError when the provider certainly did not accept it,
   * RejectedError when it refused for good, UncertainOutcomeError when it may have.
   */
  send(request: FaxSendRequest): Promise<FaxSendResult>;
  /** Asks the provider about a fax; null when the provider has no record of it. */
  status(ref: FaxReference): Promise<FaxProviderStatus | null>;
  cancel?(ref: FaxReference): Promise<void>;
  /**
   * Checks a webhook's credentials (signature, Basic auth, shared secret) with the plugin's own
   * settings; `request.kind` says which route it came to. False answers 401 (audited with reason
   * "signature"); throw WebhookRejectedError for another status or reason (503 when a secret the
   * check needs is not configured). Absent: the plugin takes no webhooks at all (404).
   */
  verifyWebhook?(request: FaxWebhookRequest): boolean | Promise<boolean>;
  /**
   * Parses a verified status callback into an update of the job named in it or in the query.
   * Absent: `/webhooks/{id}/callback` answers 404. Throw to answer 400 "malformed callback";
   * throw WebhookRejectedError for another status.
   */
  parseCallback?(request: FaxWebhookRequest): FaxStatusUpdate | Promise<FaxStatusUpdate>;
  /** @deprecated since 1.1.0: the name of parseCallback in contract 1.0.0; the host uses it when parseCallback is absent. */
  parseWebhook?(request: FaxWebhookRequest): FaxStatusUpdate;
  /**
   * Parses a verified inbound-fax notice. Absent: `/webhooks/{id}/inbound` answers 404. Throw
   * to answer 422 "malformed notice"; throw WebhookRejectedError for another status (a spool
   * path outside the spool is 403).
   */
  parseInbound?(request: FaxWebhookRequest): FaxInboundNotice | Promise<FaxInboundNotice>;
  /** True when results arrive by callback or event, so polling can be rarer. */
  readonly pushesResults?: boolean;
  /**
   * Since 1.2.0: the directions this generation serves. A plugin started with only its inbound
   * settings declares `['inbound']`: the host then refuses to send through it and still routes
   * its inbound webhooks. Absent: see faxDirectionsOf.
   */
  readonly directions?: readonly FaxDirection[];
  /**
   * Since 1.3.0: a lookup by job (`status()` with the job id) made this long after a send began
   * finds the fax if the provider accepted it. The host then calls `send` only within half of it
   * after recording the send (the plugin finishes accepting within the other half), and a send
   * whose outcome is unknown (its sender died, or it threw uncertain) that such a lookup does not
   * find is sent again. Absent: such a send is never resent (FAX_UNCERTAIN_GIVE_UP_MINUTES fails it).
   */
  readonly lookupCertainAfterMs?: number;
}

/** The directions a fax provider serves: its own list, else outbound plus inbound when it parses inbound notices. */
export function faxDirectionsOf(provider: FaxProvider): FaxDirection[] {
  if (provider.directions) return FAX_DIRECTIONS.filter((d) => provider.directions!.includes(d));
  return provider.parseInbound ? ['inbound', 'outbound'] : ['outbound'];
}
