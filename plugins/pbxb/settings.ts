import { booleanSetting, secret, singleLineText, z } from 'switchboard/sdk';
import { pbxFaxEnv, pbxFaxSettings } from 'switchboard/sdk/fax';

/** Every text setting here ends up inside one ESL command line, so none may hold a control character. */
export const pbxbSettings = z.object({
  host: singleLineText().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(1).max(65535).default(8021),
  password: secret(singleLineText().min(1).default('ClueCon')),
  /** The sofia gateway the fax is dialled through: `sofia/gateway/<gateway>/<number>`. */
  gateway: z.string().regex(/^[A-Za-z0-9._-]+$/, 'a gateway name of letters, digits, dot, dash or underscore'),
  /** callerId, header (fax_header), stationId (fax_ident), paper, timeouts and reconnect delays. */
  ...pbxFaxSettings,
  t38Enable: booleanSetting().default(true),
  commandTimeoutMs: z.coerce.number().int().min(1).default(10_000),
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
  ...pbxFaxEnv,
  // One secret for the PBX's internal hooks, as Faxbot's ASTERISK_INBOUND_SECRET was.
  internalSecret: 'PBX_INBOUND_SECRET',
} as const satisfies Partial<Record<keyof PbxbSettings, string>>;
