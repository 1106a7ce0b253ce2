import type { Request } from 'express';
import { z } from 'zod';
import type { FaxWebhookKind } from '../../../../core/sdk/index.js';
import type { HttpApi, RouteSpec } from '../../../platform/http/api.js';
import type { InboundReceiver } from '../inbound/inbound-receiver.js';
import type { CallbackReceiver } from './callback-receiver.js';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import { declaredWebhookAliases } from './webhook-aliases.js';
import { webhookRequest } from './webhook-request.js';
import { faxErrors } from '../fax-errors.js';

const PluginParams = z.object({ pluginId: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, 'plugin ids are lowercase letters, digits and dashes') });
const CallbackAnswer = z.object({ ok: z.boolean(), status: z.string().describe("The job's status after the callback") });
const InboundAnswer = z.object({ ok: z.literal(true), id: z.string(), duplicate: z.boolean().describe('True for a replay: nothing new was stored') });

/**
 * The answers of each kind of webhook. The plugin refuses with the status it chooses
 * (`webhook_rejected`: a bad signature, a spool path outside the spool, ...); what the plugin
 * parsed and the host cannot use is a `validation_error` of the kind's status.
 */
const ANSWERS: Record<FaxWebhookKind, Pick<RouteSpec<z.ZodType, z.ZodType, z.ZodType>, 'bodyErrorStatus' | 'errors' | 'responses'>> = {
  callback: {
    bodyErrorStatus: 400,
    errors: ['webhook_not_taken', 'plugin_not_available', 'fax_job_not_found', 'callback_job_mismatch', 'webhook_rejected'],
    responses: { 200: { description: 'Applied (or already applied: a late or duplicate result never moves a finished job)', schema: CallbackAnswer } },
  },
  inbound: {
    bodyErrorStatus: 422,
    errors: ['inbound_disabled', 'webhook_not_taken', 'plugin_not_available', 'media_host_not_configured', 'media_download_failed', 'webhook_rejected', 'document_too_complex'],
    responses: { 200: { description: 'Stored, or already stored (a replay)', schema: InboundAnswer } },
  },
};
const DESCRIPTION =
  'The plugin checks the credentials with its own settings (docs/fax/providers) and parses the body; the host applies the result. Idempotent.';

interface WebhookDeps {
  callbacks: CallbackReceiver;
  inbound: InboundReceiver;
  publicBaseUrl: () => string;
}

function webhookHandler(deps: WebhookDeps) {
  return async (req: Request, pluginId: string, kind: FaxWebhookKind) => {
    if (kind === 'inbound') deps.inbound.requireEnabled();
    const webhook = await webhookRequest(req, kind, deps.publicBaseUrl());
    return kind === 'callback' ? deps.callbacks.receive(pluginId, webhook) : deps.inbound.receive(pluginId, webhook);
  };
}

/** `POST /webhooks/{pluginId}/callback|inbound`. */
export function registerWebhookRoutes(api: HttpApi, deps: WebhookDeps): void {
  const handle = webhookHandler(deps);
  for (const kind of ['callback', 'inbound'] as const) {
    api.route(
      {
        method: 'post',
        path: `/webhooks/:pluginId/${kind}`,
        summary: kind === 'callback' ? "A fax plugin's status callback" : "A fax plugin's inbound-fax notice",
        description: DESCRIPTION,
        tags: ['webhooks', kind === 'callback' ? 'fax' : 'inbound'],
        access: 'public',
        params: PluginParams,
        rawBody: { contentType: 'application/octet-stream', description: "The provider's body, untouched" },
        ...ANSWERS[kind],
      },
      ({ req, params }) => handle(req, params.pluginId, kind),
    );
  }
}

/**
 * The fixed paths fax manifests declare (`webhookAliases`) as aliases of
 * `POST /webhooks/{pluginId}/{kind}`: the same handler, the same answers. A path is routed from
 * the manifests the kernel loaded at start (a new path needs a restart); each request goes to
 * the plugin whose manifest claims the path now, so an edited or removed manifest takes effect
 * at once. A path that clashes with a route already registered is skipped and reported.
 */
export function registerWebhookAliasRoutes(api: HttpApi, deps: WebhookDeps & { kernel: Kernel; onSkipped: (path: string, pluginId: string) => void }): void {
  const handle = webhookHandler(deps);
  const taken = new Set(api.routes.filter((r) => r.method === 'post').map((r) => r.path.toLowerCase()));
  for (const alias of declaredWebhookAliases(deps.kernel)) {
    if (taken.has(alias.path.toLowerCase())) {
      deps.onSkipped(alias.path, alias.pluginId);
      continue;
    }
    api.route(
      {
        method: 'post',
        path: alias.path,
        summary: alias.summary,
        description: `Alias of POST /webhooks/${alias.pluginId}/${alias.kind}, declared in that plugin's manifest. ${DESCRIPTION}`,
        tags: ['webhooks', alias.kind === 'callback' ? 'fax' : 'inbound'],
        access: 'public',
        rawBody: { contentType: alias.contentType },
        ...ANSWERS[alias.kind],
      },
      ({ req }) => {
        const current = declaredWebhookAliases(deps.kernel).find((a) => a.path.toLowerCase() === alias.path.toLowerCase() && a.kind === alias.kind);
        if (!current) throw faxErrors.error('webhook_not_taken', { pluginId: alias.pluginId, kind: alias.kind === 'callback' ? 'callbacks' : 'inbound faxes' });
        return handle(req, current.pluginId, current.kind);
      },
    );
  }
}
