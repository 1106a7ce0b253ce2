import { allowedMediaHosts, requireSettings, secret, z } from 'switchboard/sdk';
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

export const providerBEnv = {
  baseUrl: 'PROVIDERB_BASE_URL',
  projectId: 'PROVIDERB_PROJECT_ID',
  apiKey: 'PROVIDERB_API_KEY',
  apiSecret: 'PROVIDERB_API_SECRET',
  sendMode: 'PROVIDERB_SEND_MODE',
  timeoutMs: 'PROVIDERB_TIMEOUT_MS',
  mediaHosts: 'PROVIDERB_MEDIA_HOSTS',
  inboundBasicUser: 'PROVIDERB_INBOUND_BASIC_USER',
  inboundBasicPass: 'PROVIDERB_INBOUND_BASIC_PASS',
  inboundHmacSecret: 'PROVIDERB_INBOUND_HMAC_SECRET',
} as const satisfies Partial<Record<keyof ProviderBSettings, string>>;

/** Settings with every field this provider needs present. */
export interface ProviderBConfig {
  baseUrl: string;
  projectId: string;
  apiKey: string;
  apiSecret: string;
  sendMode: 'url' | 'upload';
  timeoutMs: number;
  mediaHosts: string[];
  inboundBasic: { user: string; pass: string } | undefined;
  inboundHmacSecret: string | undefined;
}

/** Throws ConfigError naming the first missing field, so the plugin waits in needs-config. */
export function requireConfig(settings: ProviderBSettings): ProviderBConfig {
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
