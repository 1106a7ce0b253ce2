import { secret, z } from 'switchboard/sdk';

/** A boolean setting that environment variables can fill ("true", "false", "1", "0", "yes", "no"). */
const flag = () => z.union([z.boolean(), z.stringbool()]);

/** No control characters: every setting here ends up inside one ESL command line. */
const line = () => z.string().regex(/^[^\x00-\x1f\x7f]*$/, 'must not contain control characters');

export const pbxbSettings = z.object({
  host: line().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(1).max(65535).default(8021),
  password: secret(line().min(1).default('ClueCon')),
  /** The sofia gateway the fax is dialled through: `sofia/gateway/<gateway>/<number>`. */
  gateway: z.string().regex(/^[A-Za-z0-9._-]+$/, 'a gateway name of letters, digits, dot, dash or underscore'),
  callerId: line().default(''),
  /** Fax page header (fax_header). */
  header: line().default(''),
  /** Local station id, the TSI (fax_ident). */
  stationId: line().default(''),
  t38Enable: flag().default(true),
  paper: z.enum(['letter', 'a4']).default('letter'),
  /** How long FreeSWITCH rings the destination (originate_timeout). */
  dialTimeoutMs: z.coerce.number().int().min(1000).default(60_000),
  /** A job with no result within this long after the originate is FAILED. */
  resultTimeoutMs: z.coerce.number().int().min(1).default(180_000),
  commandTimeoutMs: z.coerce.number().int().min(1).default(10_000),
  connectTimeoutMs: z.coerce.number().int().min(1).default(5_000),
  reconnectInitialMs: z.coerce.number().int().min(1).default(1_000),
  reconnectMaxMs: z.coerce.number().int().min(1).default(30_000),
  /**
   * Shared secret the dialplan's result hook sends as X-Internal-Secret to
   * POST /_internal/freeswitch/outbound_result; unset refuses the hook (ESL results still apply).
   */
  internalSecret: secret(z.string().min(1)).optional(),
});

export type PbxbSettings = z.infer<typeof pbxbSettings>;

export const pbxbEnv = {
  host: 'PBXB_ESL_HOST',
  port: 'PBXB_ESL_PORT',
  password: 'PBXB_ESL_PASSWORD',
  gateway: 'PBXB_GATEWAY',
  t38Enable: 'PBXB_T38_ENABLE',
  header: 'FAX_HEADER',
  stationId: 'FAX_LOCAL_STATION_ID',
  // One secret for the PBX's internal hooks, as Faxbot's ASTERISK_INBOUND_SECRET was.
  internalSecret: 'PBX_INBOUND_SECRET',
} as const satisfies Partial<Record<keyof PbxbSettings, string>>;
