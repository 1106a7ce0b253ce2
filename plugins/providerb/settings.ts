import { allowedMediaHosts, envByFieldName, requireSettings, secret, z } from 'switchboard/sdk';
import { hostedFaxSettings } from 'switchboard/sdk/fax';

export const providerBSettings = z.object({
  /** REST v3 base URL, e.g. https://fax.api.example.com/v3. */
  baseUrl: z.url().optional(),
  projectId: z.string().min(1).optional(),
  apiKey: secret(z.string().min(1)).optional(),
  apiSecret: secret(z.string().min(1)).optional(),
  /** sendMode ('url': JSON {to, contentUrl}, the provider downloads our PDF; 'upload': multipart file + to) and timeoutMs. */
  ...hostedFaxSettings,
  /** Comma-separated hosts (host or host:port) inbound documents may be fetched from; unset: the host of baseUrl. */
  mediaHosts: z.string().optional(),
  /** User name provider B must send with HTTP Basic auth on inbound notices (with inboundBasicPass); unset: no Basic auth. */
  inboundBasicUser: z.string().min(1).optional(),
  inboundBasicPass: secret(z.string()).optional(),
  /** Secret of the X-ProviderB-Signature HMAC on inbound notices; unset skips the check. */
  inboundHmacSecret: secret(z.string().min(1)).optional(),
});

export type ProviderBSettings = z.infer<typeof providerBSettings>;

/** Every setting is read from PROVIDERB_<FIELD> as well (`baseUrl`: PROVIDERB_BASE_URL). */
export const providerBEnv = envByFieldName('PROVIDERB', providerBSettings);

/** Settings with every field this provider needs present, as requireConfig makes them. */
export type ProviderBConfig = ReturnType<typeof requireConfig>;

/** Throws ConfigError naming the first missing field, so the plugin waits in needs-config. */
export function requireConfig(settings: ProviderBSettings) {
  const config = requireSettings('providerb', settings, ['baseUrl', 'projectId', 'apiKey', 'apiSecret'], providerBEnv);
  return {
    baseUrl: config.baseUrl.replace(/\/+$/, ''),
    projectId: config.projectId,
    apiKey: config.apiKey,
    apiSecret: config.apiSecret,
    sendMode: config.sendMode,
    timeoutMs: config.timeoutMs,
    mediaHosts: allowedMediaHosts(config.mediaHosts, config.baseUrl),
    inboundBasic: config.inboundBasicUser ? { user: config.inboundBasicUser, pass: config.inboundBasicPass ?? '' } : undefined,
    inboundHmacSecret: config.inboundHmacSecret,
  };
}
