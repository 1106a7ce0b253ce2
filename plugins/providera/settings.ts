import { allowedMediaHosts, booleanSetting, envByFieldName, requireSettings, secret, z, missingSettings } from 'switchboard/sdk';
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

/** What inbound notices are checked (the API secret signs them) and fetched with. */
export type ProviderAInbound = Pick<ProviderAConfig, 'apiSecret' | 'inboundVerifySignature' | 'mediaHosts'>;

/** The fields sending needs, named with their variables; empty when all are set. */
export function outboundGap(settings: ProviderASettings): string[] {
  return missingSettings(settings, ['baseUrl', 'apiKey', 'apiSecret'], providerAEnv);
}

/**
 * The inbound settings when they are enough to take notices on their own: the signing secret
 * (apiSecret) and a media host (mediaHosts, or baseUrl's host); undefined otherwise.
 */
export function inboundOnlyConfig(settings: ProviderASettings): ProviderAInbound | undefined {
  const mediaHosts = allowedMediaHosts(settings.mediaHosts, settings.baseUrl);
  if (!settings.apiSecret || !mediaHosts.length) return undefined;
  return { apiSecret: settings.apiSecret, inboundVerifySignature: settings.inboundVerifySignature, mediaHosts };
}
