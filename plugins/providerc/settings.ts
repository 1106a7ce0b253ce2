import { booleanSetting, ConfigError, envByFieldName, requireSettings, secret, z } from 'switchboard/sdk';
import { hostedFaxSettings } from 'switchboard/sdk/fax';

export const providerCSettings = z.object({
  /** The space host, e.g. example.signalwire.test (a scheme or trailing slash is tolerated). */
  spaceUrl: z
    .string()
    .regex(/^(https?:\/\/)?[a-z0-9.-]+(:\d+)?\/?$/i, 'a host name such as example.signalwire.test')
    .optional(),
  /** Overrides the API base built from spaceUrl (https://{space}/api/laml/2010-04-01). */
  baseUrl: z.url().optional(),
  projectId: z.string().min(1).optional(),
  apiToken: secret(z.string().min(1)).optional(),
  /** The caller number faxes are sent from (`From`). */
  faxFrom: z.string().min(1).optional(),
  /** Check X-SignalWire-Signature (or X-Twilio-Signature) on status callbacks. */
  verifySignature: booleanSetting().default(false),
  timeoutMs: hostedFaxSettings.timeoutMs,
});

export type ProviderCSettings = z.infer<typeof providerCSettings>;

/** Every setting is read from PROVIDERC_<FIELD> as well (`baseUrl`: PROVIDERC_BASE_URL). */
export const providerCEnv = envByFieldName('PROVIDERC', providerCSettings);

/** Settings with every field this provider needs present, as requireConfig makes them. */
export type ProviderCConfig = ReturnType<typeof requireConfig>;

/** The LaML API base of a space: https://{space}/api/laml/2010-04-01. */
export function spaceBaseUrl(spaceUrl: string): string {
  const host = spaceUrl.replace(/^https?:\/\//i, '').replace(/\/+$/, '');
  return `https://${host}/api/laml/2010-04-01`;
}

/** Throws ConfigError naming the first missing field, so the plugin waits in needs-config. */
export function requireConfig(settings: ProviderCSettings) {
  if (!settings.baseUrl && !settings.spaceUrl) {
    throw new ConfigError('providerc: spaceUrl is required (PROVIDERC_SPACE_URL), or baseUrl (PROVIDERC_BASE_URL)', 'spaceUrl');
  }
  const config = requireSettings('providerc', settings, ['projectId', 'apiToken', 'faxFrom'], providerCEnv);
  return {
    baseUrl: (config.baseUrl ?? spaceBaseUrl(config.spaceUrl!)).replace(/\/+$/, ''),
    projectId: config.projectId,
    apiToken: config.apiToken,
    faxFrom: config.faxFrom,
    verifySignature: config.verifySignature,
    timeoutMs: config.timeoutMs,
  };
}
