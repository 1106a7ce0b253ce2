import { SECRET_MASK } from '../../sdk/index.js';
import { settingsSchemaFromManifest, type HttpAction, type Manifest } from '../../manifest/index.js';
import { callbackUrl } from './callback.js';
import { fetchBody } from './request-body.js';
import { setHeader } from './request-headers.js';
import { renderRequest } from './render-request.js';
import { RequestRenderError, templateParts } from '../template/template-render.js';
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
  /** PUBLIC_API_URL, for `{{ callback_url }}`. */
  publicBaseUrl: string;
}

/** Whether the manifest's egress list, resolved with these settings, allows the URL (the host's rule). */
export type DryRunEgress = (url: URL, settings: Readonly<Record<string, unknown>>) => boolean;

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

/**
 * The sample's settings as the plugin would get them: parsed by the manifest's settings schema
 * (defaults, coercion, enums, required fields). A secret string the sample leaves out stands as
 * the mask, so a dry run never needs a real secret.
 */
function sampleSettings(manifest: Manifest, given: Record<string, unknown> = {}): { ok: true; settings: Record<string, unknown> } | { ok: false; error: string } {
  const input: Record<string, unknown> = { ...given };
  for (const [name, field] of Object.entries(manifest.settings ?? {})) {
    const unset = !Object.hasOwn(given, name) && field.default === undefined;
    if (field.secret && unset && field.type === 'string' && !field.enum) input[name] = SECRET_MASK;
  }
  const parsed = settingsSchemaFromManifest(manifest.settings).safeParse(input);
  if (parsed.success) return { ok: true, settings: parsed.data as Record<string, unknown> };
  // Paths and zod's words only: a value may be a secret.
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || 'settings'}: ${issue.message}`);
  return { ok: false, error: `the sample settings do not fit the manifest's settings: ${problems.join('; ')}` };
}

function readsSecret(templates: string[], secrets: Set<string>): boolean {
  return templates.some((template) =>
    templateParts(template).some((part) => part.kind === 'placeholder' && /^(?:settings|secrets)\./.test(part.expression) && secrets.has(part.expression.split('.')[1]!)),
  );
}

async function renderOne(name: string, action: HttpAction, manifest: Manifest, settings: Record<string, unknown>, call: Omit<CallValues, 'from'>, egress: DryRunEgress): Promise<DryRunRequest> {
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
    return { action: name, method: request.method, url: request.url.href, headers: request.headers, body, egress_allowed: egress(request.url, values.settings) };
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
export async function renderDryRun(manifest: Manifest, sample: DryRunSample, egress: DryRunEgress): Promise<DryRunRequest[]> {
  const http = manifest.http;
  if (!http) return [];
  const actions = (['send', 'status', 'cancel'] as const).filter((name) => http.actions[name]);
  const parsed = sampleSettings(manifest, sample.settings);
  if (!parsed.ok) return actions.map((action) => ({ action, error: parsed.error }));
  const to = sample.to ?? SAMPLE_TO;
  const out: DryRunRequest[] = [];
  for (const name of actions) {
    const callback = http.callback ? { callback_url: callbackUrl(sample.publicBaseUrl, manifest.id, sample.jobId) } : {};
    const call = name === 'send' ? { to, job_id: sample.jobId, document_url: sample.documentUrl, ...callback } : { to, job_id: sample.jobId, provider_sid: sample.providerSid };
    out.push(await renderOne(name, http.actions[name]!, manifest, parsed.settings, call, egress));
  }
  return out;
}

const LOOPBACK_HOST = /^(?:localhost|.*\.localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)$/i;

/**
 * Warnings about rendered requests that would hand the provider a URL of this gateway it could
 * never fetch: the document or callback URL on a loopback base (PUBLIC_API_URL unset or local).
 */
export function publicUrlWarnings(requests: DryRunRequest[], publicBaseUrl: string): string[] {
  let host: string;
  try {
    host = new URL(publicBaseUrl).hostname;
  } catch {
    return [];
  }
  if (!LOOPBACK_HOST.test(host)) return [];
  return requests
    .filter((r): r is Extract<DryRunRequest, { url: string }> => 'url' in r)
    .filter((r) => [r.url, r.body ?? '', ...Object.values(r.headers)].some((part) => part.includes(publicBaseUrl)))
    .map((r) => `the ${r.action} request hands the provider a URL on ${publicBaseUrl}, which it cannot reach from outside: set PUBLIC_API_URL to the gateway's public address`);
}
