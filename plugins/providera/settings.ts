import { allowedMediaHosts, ConfigError, secret, z } from 'switchboard/sdk';

/** 'true'/'false'/'1'/'0' from the environment, a real boolean from the config store. */
const flag = z.union([z.boolean(), z.stringbool()]);

export const providerASettings = z.object({
  /** REST v2 base URL, e.g. https://api.example.com/v2. */
  baseUrl: z.url().optional(),
  apiKey: secret(z.string().min(1)).optional(),
  apiSecret: secret(z.string().min(1)).optional(),
  /** Check X-ProviderA-Signature on status callbacks. */
  verifySignature: flag.default(false),
  /** 'url': the provider downloads our tokenized PDF URL; 'upload': we send the PDF as a file. */
  sendMode: z.enum(['url', 'upload']).default('url'),
  timeoutMs: z.coerce.number().int().positive().default(30_000),
  /** Check X-ProviderA-Signature on inbound fax notices (on unless turned off). */
  inboundVerifySignature: flag.default(true),
  /** Comma-separated hosts (host or host:port) inbound documents may be fetched from; unset: the host of baseUrl. */
  mediaHosts: z.string().optional(),
});

export type ProviderASettings = z.infer<typeof providerASettings>;

export const providerAEnv = {
  baseUrl: 'PROVIDERA_BASE_URL',
  apiKey: 'PROVIDERA_API_KEY',
  apiSecret: 'PROVIDERA_API_SECRET',
  verifySignature: 'PROVIDERA_VERIFY_SIGNATURE',
  sendMode: 'PROVIDERA_SEND_MODE',
  timeoutMs: 'PROVIDERA_TIMEOUT_MS',
  inboundVerifySignature: 'PROVIDERA_INBOUND_VERIFY_SIGNATURE',
  mediaHosts: 'PROVIDERA_MEDIA_HOSTS',
} as const satisfies Partial<Record<keyof ProviderASettings, string>>;

/** Settings with every field this provider needs present. */
export interface ProviderAConfig {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  verifySignature: boolean;
  sendMode: 'url' | 'upload';
  timeoutMs: number;
  inboundVerifySignature: boolean;
  mediaHosts: string[];
}

/** Throws ConfigError naming the first missing field, so the plugin waits in needs-config. */
export function requireConfig(settings: ProviderASettings): ProviderAConfig {
  for (const field of ['baseUrl', 'apiKey', 'apiSecret'] as const) {
    if (!settings[field]) throw new ConfigError(`providera: ${field} is required (${providerAEnv[field]})`, field);
  }
  return {
    baseUrl: settings.baseUrl!.replace(/\/+$/, ''),
    apiKey: settings.apiKey!,
    apiSecret: settings.apiSecret!,
    verifySignature: settings.verifySignature,
    sendMode: settings.sendMode,
    timeoutMs: settings.timeoutMs,
    inboundVerifySignature: settings.inboundVerifySignature,
    mediaHosts: allowedMediaHosts(settings.mediaHosts, settings.baseUrl),
  };
}
