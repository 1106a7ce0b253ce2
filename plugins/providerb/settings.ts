import { allowedMediaHosts, ConfigError, secret, z } from 'switchboard/sdk';

export const providerBSettings = z.object({
  /** REST v3 base URL, e.g. https://fax.api.example.com/v3. */
  baseUrl: z.url().optional(),
  projectId: z.string().min(1).optional(),
  apiKey: secret(z.string().min(1)).optional(),
  apiSecret: secret(z.string().min(1)).optional(),
  /** 'url': JSON {to, contentUrl} and the provider downloads our PDF; 'upload': multipart file + to. */
  sendMode: z.enum(['url', 'upload']).default('url'),
  timeoutMs: z.coerce.number().int().positive().default(30_000),
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
  for (const field of ['baseUrl', 'projectId', 'apiKey', 'apiSecret'] as const) {
    if (!settings[field]) throw new ConfigError(`providerb: ${field} is required (${providerBEnv[field]})`, field);
  }
  return {
    baseUrl: settings.baseUrl!.replace(/\/+$/, ''),
    projectId: settings.projectId!,
    apiKey: settings.apiKey!,
    apiSecret: settings.apiSecret!,
    sendMode: settings.sendMode,
    timeoutMs: settings.timeoutMs,
    mediaHosts: allowedMediaHosts(settings.mediaHosts, settings.baseUrl),
    inboundBasic: settings.inboundBasicUser ? { user: settings.inboundBasicUser, pass: settings.inboundBasicPass ?? '' } : undefined,
    inboundHmacSecret: settings.inboundHmacSecret,
  };
}
