import { requireSettings, secret, z } from 'switchboard/sdk';
import { hostedFaxSettings } from 'switchboard/sdk/fax';

export const providerBSettings = z.object({
  /** REST v3 base URL, e.g. https://fax.api.example.com/v3. */
  baseUrl: z.url().optional(),
  projectId: z.string().min(1).optional(),
  apiKey: secret(z.string().min(1)).optional(),
  apiSecret: secret(z.string().min(1)).optional(),
  /** sendMode ('url': JSON {to, contentUrl}, the provider downloads our PDF; 'upload': multipart file + to) and timeoutMs. */
  ...hostedFaxSettings,
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
  const config = requireSettings('providerb', settings, ['baseUrl', 'projectId', 'apiKey', 'apiSecret'], providerBEnv);
  return { ...config, baseUrl: config.baseUrl.replace(/\/+$/, '') };
}
