import { ConfigError, secret, z } from 'switchboard/sdk';

export const providerBSettings = z.object({
  /** REST v3 base URL, e.g. https://fax.api.example.com/v3. */
  baseUrl: z.url().optional(),
  projectId: z.string().min(1).optional(),
  apiKey: secret(z.string().min(1)).optional(),
  apiSecret: secret(z.string().min(1)).optional(),
  /** 'url': JSON {to, contentUrl} and the provider downloads our PDF; 'upload': multipart file + to. */
  sendMode: z.enum(['url', 'upload']).default('url'),
  timeoutMs: z.coerce.number().int().positive().default(30_000),
});

export type ProviderBSettings = z.infer<typeof providerBSettings>;

export const providerBEnv = {
  baseUrl: 'PROVIDERB_BASE_URL',
  projectId: 'PROVIDERB_PROJECT_ID',
  apiKey: 'PROVIDERB_API_KEY',
  apiSecret: 'PROVIDERB_API_SECRET',
  sendMode: 'PROVIDERB_SEND_MODE',
  timeoutMs: 'PROVIDERB_TIMEOUT_MS',
} as const satisfies Partial<Record<keyof ProviderBSettings, string>>;

/** Settings with every field this provider needs present. */
export interface ProviderBConfig {
  baseUrl: string;
  projectId: string;
  apiKey: string;
  apiSecret: string;
  sendMode: 'url' | 'upload';
  timeoutMs: number;
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
  };
}
