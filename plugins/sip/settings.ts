import { envOnly, secret, z } from 'switchboard/sdk';

/** A boolean setting that environment variables can fill ("true", "false", "1", "0", "yes", "no"). */
const flag = () => z.union([z.boolean(), z.stringbool()]);

/** No line breaks or other control characters: every setting here ends up on an AMI line. */
const line = () => z.string().regex(/^[^\x00-\x1f\x7f]*$/, 'must not contain control characters');

export const sipSettings = z.object({
  host: line().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(1).max(65535).default(5038),
  username: line().min(1),
  password: secret(line().min(1)),
  /**
   * Outgoing channel. Empty: `Local/<dest>@<context>` (the dialplan dials). Otherwise a channel
   * template with `{dest}` (`PJSIP/{dest}@carrier`) or a prefix (`SIP/carrier` -> `SIP/carrier/<dest>`).
   */
  trunk: line().default(''),
  context: line().min(1).default('faxout'),
  /** Where the answered call continues: the extension that runs SendFAX. */
  exten: line().min(1).default('send'),
  priority: z.coerce.number().int().min(1).default(1),
  callerId: line().default(''),
  /** Fax page header (FAXOPT(headerinfo)). */
  header: line().default(''),
  /** Local station id, the TSI (FAXOPT(localstationid)). */
  stationId: line().default(''),
  t38: flag().default(true),
  paper: z.enum(['letter', 'a4']).default('letter'),
  /** How long Asterisk rings the destination before giving up (Originate `Timeout`). */
  dialTimeoutMs: z.coerce.number().int().min(1000).default(60_000),
  /** A job with no result within this long after the originate is FAILED. */
  resultTimeoutMs: z.coerce.number().int().min(1).default(180_000),
  actionTimeoutMs: z.coerce.number().int().min(1).default(10_000),
  connectTimeoutMs: z.coerce.number().int().min(1).default(5_000),
  pingIntervalMs: z.coerce.number().int().min(0).default(20_000),
  reconnectInitialMs: z.coerce.number().int().min(1).default(1_000),
  reconnectMaxMs: z.coerce.number().int().min(1).default(30_000),
  /** Shared secret the dialplan sends as X-Internal-Secret to POST /_internal/pbx/inbound; unset refuses the hook. */
  inboundSecret: secret(z.string().min(1)).optional(),
  /** Directory Asterisk writes received fax TIFFs to; tiff_path must resolve inside it. Environment only. */
  spoolDir: envOnly(z.string().min(1)).optional(),
});

export type SipSettings = z.infer<typeof sipSettings>;

export const sipEnv = {
  host: 'SIP_AMI_HOST',
  port: 'SIP_AMI_PORT',
  username: 'SIP_AMI_USERNAME',
  password: 'SIP_AMI_PASSWORD',
  trunk: 'SIP_TRUNK',
  header: 'FAX_HEADER',
  stationId: 'FAX_LOCAL_STATION_ID',
  inboundSecret: 'PBX_INBOUND_SECRET',
  spoolDir: 'PBX_SPOOL_DIR',
} as const satisfies Partial<Record<keyof SipSettings, string>>;
