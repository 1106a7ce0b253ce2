import { booleanSetting, envOnly, secret, singleLineText, z } from 'switchboard/sdk';
import { pbxFaxEnv, pbxFaxSettings } from 'switchboard/sdk/fax';

/** Every text setting here ends up on an AMI line, so none may hold a line break. */
export const sipSettings = z.object({
  host: singleLineText().min(1).default('127.0.0.1'),
  port: z.coerce.number().int().min(1).max(65535).default(5038),
  /** AMI login, needed to send; without it the plugin serves the inbound hook only (when that is set up). */
  username: singleLineText().min(1).optional(),
  password: secret(singleLineText().min(1)).optional(),
  /**
   * Outgoing channel. Empty: `Local/<dest>@<context>` (the dialplan dials). Otherwise a channel
   * template with `{dest}` (`PJSIP/{dest}@carrier`) or a prefix (`SIP/carrier` -> `SIP/carrier/<dest>`).
   */
  trunk: singleLineText().default(''),
  context: singleLineText().min(1).default('faxout'),
  /** Where the answered call continues: the extension that runs SendFAX. */
  exten: singleLineText().min(1).default('send'),
  priority: z.coerce.number().int().min(1).default(1),
  /** callerId, header (FAXOPT(headerinfo)), stationId (FAXOPT(localstationid)), paper, timeouts and reconnect delays. */
  ...pbxFaxSettings,
  t38: booleanSetting().default(true),
  actionTimeoutMs: z.coerce.number().int().min(1).default(10_000),
  /** Keep-alive `Action: Ping` interval; 0 turns it off. */
  pingIntervalMs: z.coerce.number().int().min(0).default(20_000),
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
  ...pbxFaxEnv,
  inboundSecret: 'PBX_INBOUND_SECRET',
  spoolDir: 'PBX_SPOOL_DIR',
} as const satisfies Partial<Record<keyof SipSettings, string>>;
