/** The fax provider contract. Inside major 1 only optional members are added. */
export const FAX_CONTRACT = '1.0.0';

export const FAX_STATUSES = ['queued', 'in_progress', 'SUCCESS', 'FAILED', 'disabled'] as const;
export type FaxStatus = (typeof FAX_STATUSES)[number];

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
  signal?: AbortSignal;
}

/** What the provider says of a fax. */
export interface FaxProviderStatus {
  providerSid?: string;
  status: FaxStatus;
  pages?: number;
  error?: string;
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

/** A provider webhook as received by the host, untouched. */
export interface FaxWebhookRequest {
  /** The public URL the provider called (PUBLIC_API_URL + path + query), for URL-signing schemes. */
  url: string;
  rawBody: Buffer;
  contentType: string;
  headers: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
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
  /** Verifies a status callback's signature; absent means callbacks are not accepted. */
  verifyWebhook?(request: FaxWebhookRequest): boolean;
  /** Parses a status callback into an update for the job named in it or in the query. */
  parseWebhook?(request: FaxWebhookRequest): FaxStatusUpdate;
  /** True when results arrive by callback or event, so polling can be rarer. */
  readonly pushesResults?: boolean;
}
