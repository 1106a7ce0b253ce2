import type { z } from 'zod';
import type { FaxLineFailure, FaxStatus, FaxStatusUpdate, FaxWebhookRequest } from './contracts/fax.js';
import { WebhookRejectedError } from './errors.js';

/** A webhook's JSON body checked against `schema`: 400 when it is not JSON, 422 naming the bad fields. */
export function parseWebhookJson<T extends z.ZodType>(request: Pick<FaxWebhookRequest, 'rawBody'>, schema: T): z.infer<T> {
  let value: unknown;
  try {
    value = JSON.parse(request.rawBody.toString('utf8'));
  } catch {
    throw new WebhookRejectedError(400, 'not_json', 'request body is not valid JSON');
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new WebhookRejectedError(422, 'malformed', result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  }
  return result.data;
}

/**
 * The hosts a provider's inbound documents may be downloaded from: the configured
 * comma-separated list (host or host:port), else the host of the provider's base URL.
 */
export function allowedMediaHosts(configured: string | undefined, baseUrl: string | undefined): string[] {
  if (configured) return configured.split(',').map((h) => h.trim()).filter(Boolean);
  if (!baseUrl) return [];
  try {
    return [new URL(baseUrl).host];
  } catch {
    return [];
  }
}

/**
 * A callback's fields as a FaxStatusUpdate: the job id is required (from the query or the body),
 * pages are taken when they are a non-negative integer, empty fields are left out.
 */
export function callbackUpdate(
  jobId: string | undefined,
  fields: { status: FaxStatus; raw: string; providerSid?: string | undefined; pages?: string | number | undefined; error?: string | undefined; lineFailure?: FaxLineFailure | undefined },
): FaxStatusUpdate {
  if (!jobId) throw new Error('callback without job_id');
  const pages = typeof fields.pages === 'number' ? fields.pages : Number.parseInt(fields.pages ?? '', 10);
  return {
    jobId,
    status: fields.status,
    ...(fields.providerSid ? { providerSid: fields.providerSid } : {}),
    ...(Number.isInteger(pages) && pages >= 0 ? { pages } : {}),
    ...(fields.error ? { error: fields.error } : {}),
    ...(fields.lineFailure && fields.status === 'FAILED' ? { lineFailure: fields.lineFailure } : {}),
    raw: fields.raw,
  };
}

/** Which fields of a form-posted status callback hold the status word, the provider's id and the page count. */
export interface CallbackFieldNames {
  status: string;
  providerSid: string;
  pages: string;
}

/**
 * A status callback posted as form fields, as an update of the job named by `job_id` in its
 * query: `classify` turns the status word (and any other field, through `field`) into the status,
 * error and line failure. A missing job_id or status word throws, naming `provider` and the field.
 */
export function formCallbackUpdate(
  request: FaxWebhookRequest,
  fields: ReadonlyMap<string, string>,
  provider: string,
  names: CallbackFieldNames,
  classify: (raw: string, field: (name: string) => string | undefined) => { status: FaxStatus; error?: string | undefined; lineFailure?: FaxLineFailure | undefined },
): FaxStatusUpdate {
  if (!request.query.job_id) throw new Error(`${provider} callback without job_id in its query`);
  const raw = fields.get(names.status);
  if (!raw) throw new Error(`${provider} callback without ${names.status}`);
  // An empty field is no value: providers post them blank.
  const field = (name: string) => fields.get(name) || undefined;
  return callbackUpdate(request.query.job_id, { ...classify(raw, field), raw, providerSid: fields.get(names.providerSid), pages: fields.get(names.pages) });
}
