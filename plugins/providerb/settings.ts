import { allowedMediaHosts, envByFieldName, missingSettings, requireSettings, secret, z } from 'switchboard/sdk';
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

/** What inbound notices are checked and fetched with. */
export interface ProviderBInbound {
  mediaHosts: string[];
  inboundBasic: { user: string; pass: string } | undefined;
  inboundHmacSecret: string | undefined;
}

/** Settings with every field this provider needs present. */
export interface ProviderBConfig extends ProviderBInbound {
  baseUrl: string;
  projectId: string;
  apiKey: string;
  apiSecret: string;
  sendMode: 'url' | 'upload';
  timeoutMs: number;
}

/** The fields sending needs, named with their variables; empty when all are set. */
export function outboundGap(settings: ProviderBSettings): string[] {
  return missingSettings(settings, ['baseUrl', 'projectId', 'apiKey', 'apiSecret'], providerBEnv);
}

/**
 * The inbound settings when they are enough to take notices on their own: a Basic user or an
 * HMAC secret, and a media host (mediaHosts, or baseUrl's host); undefined otherwise.
 */
export function inboundOnlyConfig(settings: ProviderBSettings): ProviderBInbound | undefined {
  const inbound = inboundOf(settings);
  const checked = inbound.inboundBasic || inbound.inboundHmacSecret;
  return checked && inbound.mediaHosts.length ? inbound : undefined;
}

function inboundOf(settings: ProviderBSettings): ProviderBInbound {
  return {
    mediaHosts: allowedMediaHosts(settings.mediaHosts, settings.baseUrl),
    inboundBasic: settings.inboundBasicUser ? { user: settings.inboundBasicUser, pass: settings.inboundBasicPass ?? '' } : undefined,
    inboundHmacSecret: settings.inboundHmacSecret,
  };
}

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
    ...inboundOf(config),
  };
}
