import { allowedMediaHosts, booleanSetting, envByFieldName, requireSettings, secret, z } from 'switchboard/sdk';
import { hostedFaxSettings } from 'switchboard/sdk/fax';

export const providerASettings = z.object({
  /** REST v2 base URL, e.g. https://api.example.com/v2. */
  baseUrl: z.url().optional(),
  apiKey: secret(z.string().min(1)).optional(),
  apiSecret: secret(z.string().min(1)).optional(),
  /** Check X-ProviderA-Signature on status callbacks. */
  verifySignature: booleanSetting().default(false),
  /** sendMode ('url': the provider downloads our PDF; 'upload': we send it) and timeoutMs. */
  ...hostedFaxSettings,
  /** Check X-ProviderA-Signature on inbound fax notices (on unless turned off). */
  inboundVerifySignature: booleanSetting().default(true),
  /** Comma-separated hosts (host or host:port) inbound documents may be fetched from; unset: the host of baseUrl. */
  mediaHosts: z.string().optional(),
});

export type ProviderASettings = z.infer<typeof providerASettings>;

/** Every setting is read from PROVIDERA_<FIELD> as well (`baseUrl`: PROVIDERA_BASE_URL). */
export const providerAEnv = envByFieldName('PROVIDERA', providerASettings);

/** Settings with every field this provider needs present, as requireConfig makes them. */
export type ProviderAConfig = ReturnType<typeof requireConfig>;

/** Throws ConfigError naming the first missing field, so the plugin waits in needs-config. */
export function requireConfig(settings: ProviderASettings) {
  const config = requireSettings('providera', settings, ['baseUrl', 'apiKey', 'apiSecret'], providerAEnv);
  return { ...config, baseUrl: config.baseUrl.replace(/\/+$/, ''), mediaHosts: allowedMediaHosts(config.mediaHosts, config.baseUrl) };
}
