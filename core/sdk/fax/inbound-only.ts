import type { FaxProvider } from '../contracts/fax.js';
import { RejectedError } from '../errors.js';
import type { PluginInstance } from '../plugin.js';

/** The webhook members an inbound-only provider keeps. */
export type InboundHooks = Required<Pick<FaxProvider, 'verifyWebhook' | 'parseInbound'>>;

/**
 * A fax provider that serves inbound only: started with its inbound settings and without its
 * outbound ones. `directions` tells the host not to send through it; should a call still come
 * (a job queued before a settings change), send and status answer `why` (the missing settings).
 */
export function inboundOnlyFax(hooks: InboundHooks, why: string): FaxProvider {
  return {
    directions: ['inbound'],
    send: () => Promise.reject(new RejectedError(`inbound only: ${why}`)),
    status: () => Promise.reject(new Error(`inbound only: ${why}`)),
    ...hooks,
  };
}

/**
 * A started plugin serving inbound only: `inboundOnlyFax(hooks)` and a health check that is ok and
 * says what sending needs (`sendingNeeds`: the missing settings, named with their variables).
 */
export function inboundOnlyPlugin(hooks: InboundHooks, sendingNeeds: string): PluginInstance {
  return {
    providers: { fax: inboundOnlyFax(hooks, `${sendingNeeds} not set`) },
    // Nothing was contacted: an inbound-only provider's health says so (a settings test reports "shape").
    health: () => ({ ok: true, checked: 'shape', detail: `inbound only: sending needs ${sendingNeeds}` }),
  };
}

/** How a hosted provider with separate send and inbound settings reads them. */
export interface SplitSettings<S, I> {
  /** The send settings missing from `settings`, named with their variables (empty: it can send). */
  outboundGap(settings: S): string[];
  /** The inbound settings, when they are complete. */
  inboundOnlyConfig(settings: S): I | undefined;
  /** The webhook members serving those inbound settings. */
  inboundHooks(inbound: I): InboundHooks;
}

/**
 * Starts a hosted provider as far as its settings go: `sending()` when it can send, an inbound-only
 * plugin when only its inbound settings are complete; otherwise `sending()` too, whose settings
 * check names what is missing.
 */
export function startAsSettingsAllow<S, I>(settings: S, split: SplitSettings<S, I>, sending: () => PluginInstance): PluginInstance {
  const gap = split.outboundGap(settings);
  const inbound = gap.length ? split.inboundOnlyConfig(settings) : undefined;
  return inbound ? inboundOnlyPlugin(split.inboundHooks(inbound), gap.join(', ')) : sending();
}
