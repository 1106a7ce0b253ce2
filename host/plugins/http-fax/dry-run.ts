import { SECRET_MASK } from '../../../core/sdk/index.js';
import { egressAllows, resolveEgress } from '../../../core/kernel/egress.js';
import type { HttpAction, Manifest } from '../../../core/manifest/index.js';
import { fetchBody } from './request-body.js';
import { setHeader } from './request-headers.js';
import { renderRequest } from './render-request.js';
import { RequestRenderError, templateParts } from './template-text.js';
import { maskedValues, templateValues, type CallValues } from './template-values.js';

export const SAMPLE_TO = '+15551234567';
const SAMPLE_FILE_TEXT = '<the PDF of the fax>';

export interface DryRunSample {
  to?: string;
  /** Sample settings; secret fields are ignored (always shown as the mask). */
  settings?: Record<string, unknown>;
  jobId: string;
  documentUrl: string;
  providerSid: string;
}

/** A request an action would send, secrets masked; or why it could not be rendered. */
export type DryRunRequest =
  | {
      action: string;
      method: string;
      url: string;
      headers: Record<string, string>;
      body: string | null;
      egress_allowed: boolean;
    }
  | { action: string; error: string };

function secretFieldsOf(manifest: Manifest): string[] {
  return Object.entries(manifest.settings ?? {})
    .filter(([, field]) => field.secret === true)
    .map(([name]) => name);
}

/** Manifest defaults, then the sample's values for declared fields. */
function sampleSettings(manifest: Manifest, given: Record<string, unknown> = {}): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(manifest.settings ?? {})) {
    if (Object.hasOwn(given, name)) settings[name] = given[name];
    else if (field.default !== undefined) settings[name] = field.default;
  }
  return settings;
}

function readsSecret(templates: string[], secrets: Set<string>): boolean {
  return templates.some((template) =>
    templateParts(template).some((part) => part.kind === 'placeholder' && /^(?:settings|secrets)\./.test(part.expression) && secrets.has(part.expression.split('.')[1]!)),
  );
}

async function renderOne(name: string, action: HttpAction, manifest: Manifest, settings: Record<string, unknown>, call: Omit<CallValues, 'from'>): Promise<DryRunRequest> {
  const secrets = secretFieldsOf(manifest);
  const values = maskedValues(templateValues(settings, secrets, call));
  try {
    const request = renderRequest(action, values);
    const auth = action.auth;
    // base64 would hide the mask: show a Basic credential that reads a secret as masked.
    if (auth?.kind === 'basic' && readsSecret([auth.username, auth.password], new Set(secrets))) setHeader(request.headers, 'Authorization', `Basic ${SECRET_MASK}`);
    let body: string | null = null;
    if (request.body.kind !== 'none') {
      const encoded = new Response(fetchBody(request.body, Buffer.from(SAMPLE_FILE_TEXT)));
      const type = encoded.headers.get('content-type');
      if (type && request.body.kind !== 'json') request.headers['Content-Type'] = type;
      body = await encoded.text();
    }
    const egress = resolveEgress(manifest.egress ?? [], values.settings as Record<string, unknown>);
    return { action: name, method: request.method, url: request.url.href, headers: request.headers, body, egress_allowed: egressAllows(egress, request.url) };
  } catch (err) {
    if (err instanceof RequestRenderError) return { action: name, error: err.message };
    throw err;
  }
}

/**
 * The requests an `http` block would send for a sample fax (send, then status and cancel with
 * a sample provider id), rendered exactly as the runtime renders them, with every secret
 * setting shown as the mask. Nothing is sent.
 */
export async function renderDryRun(manifest: Manifest, sample: DryRunSample): Promise<DryRunRequest[]> {
  const http = manifest.http;
  if (!http) return [];
  const settings = sampleSettings(manifest, sample.settings);
  const to = sample.to ?? SAMPLE_TO;
  const out = [await renderOne('send', http.actions.send, manifest, settings, { to, job_id: sample.jobId, document_url: sample.documentUrl })];
  for (const name of ['status', 'cancel'] as const) {
    const action = http.actions[name];
    if (action) out.push(await renderOne(name, action, manifest, settings, { to, job_id: sample.jobId, provider_sid: sample.providerSid }));
  }
  return out;
}
