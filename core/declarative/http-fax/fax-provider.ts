import {
  NotAcceptedError,
  readBodyCapped,
  RejectedError,
  UncertainOutcomeError,
  type FaxProvider,
  type FaxProviderStatus,
  type FaxReference,
  type FaxSendRequest,
  type FaxSendResult,
  type PluginContext,
} from '../../sdk/index.js';
import type { HttpAction, HttpBlock } from '../../manifest/index.js';
import { answerFailure, type CallSubject } from '../../sdk/fax/index.js';
import { callbackUrl, parseCallback, verifyCallback } from './callback.js';
import { failureOf } from './outcome.js';
import { fetchBody } from './request-body.js';
import { renderRequest } from './render-request.js';
import { jobIdOf, parseAnswer, providerMessage, statusOf } from './response-map.js';
import { templateValues, type CallValues } from './template-values.js';

const DEFAULT_TIMEOUT_MS = 30_000;

/** A provider's answer is a small JSON document; anything larger is refused. */
const MAX_ANSWER_BYTES = 1024 * 1024;

interface Answer {
  response: Response;
  text: string;
}

/**
 * The fax provider of a manifest's `http` block: each call renders its action's templates and
 * goes out through the egress-checked client, and the answer is mapped onto our statuses.
 */
export function createHttpFaxProvider(block: HttpBlock, ctx: PluginContext, secretFields: readonly string[], provider: string): FaxProvider {
  const credentials = secretFields.length ? `the secret settings (${secretFields.join(', ')})` : 'the settings';
  const subject = (action: string): CallSubject => ({ provider, credentials, action });
  /** The error of a non-2xx answer, by the SDK's rules, with the provider's own words. */
  const answerError = (action: string, response: Response, said: string | undefined) =>
    answerFailure(response.status, { message: said, retryAfter: response.headers.get('retry-after') }, subject(action));
  const outcomes = ctx.metrics.counter('http_fax_calls_total', 'Calls of manifest-defined fax providers by action and outcome', ['action', 'outcome']);

  async function call(name: string, action: HttpAction, call: Omit<CallValues, 'from'>, signal: AbortSignal | undefined, document?: () => Promise<Buffer>): Promise<Answer> {
    const timeoutMs = action.timeout_ms ?? DEFAULT_TIMEOUT_MS;
    let bytes: Buffer | undefined;
    try {
      // Read before anything is sent: a storage failure here means nothing reached the provider.
      bytes = action.body?.kind === 'multipart' && document ? await document() : undefined;
    } catch (err) {
      throw new NotAcceptedError(`${name}: the document could not be read (${(err as Error).message})`);
    }
    try {
      const request = renderRequest(action, templateValues(ctx.settings, secretFields, call));
      const response = await ctx.http.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: fetchBody(request.body, bytes),
        timeoutMs,
        ...(signal ? { signal } : {}),
        ...(action.auth?.kind === 'api_key_header' ? { credentialHeaders: [action.auth.header] } : {}),
      });
      const text = (await readBodyCapped(response, MAX_ANSWER_BYTES)).toString('utf8');
      outcomes.inc({ action: name, outcome: String(response.status) });
      if (!response.ok && response.status !== 404) ctx.logger.warn('provider answered with an error', { action: name, status: response.status });
      return { response, text };
    } catch (err) {
      const failure = failureOf(err, subject(name), timeoutMs);
      outcomes.inc({ action: name, outcome: failure.code });
      // The code only: messages can carry the provider's text, which may echo the number.
      ctx.logger.warn('provider call failed', { action: name, code: failure.code });
      throw failure;
    }
  }

  const fax: FaxProvider = {
    // With a callback, results also come pushed, as with the code plugins that take them.
    pushesResults: !!block.callback,

    async send(request: FaxSendRequest): Promise<FaxSendResult> {
      const action = block.actions.send;
      const { response, text } = await call(
        'send',
        action,
        {
          to: request.to,
          document_url: request.document.url,
          job_id: request.jobId,
          ...(block.callback ? { callback_url: request.callbackUrl ?? callbackUrl(request.publicBaseUrl, ctx.pluginId, request.jobId) } : {}),
        },
        request.signal,
        () => request.document.read(),
      );
      if (!response.ok) throw answerError('send', response, providerMessage(text, action.response));
      const answer = parseAnswer(text);
      if (!answer.ok) throw new UncertainOutcomeError(`send: provider answered HTTP ${response.status} with a body that is not JSON; the fax may have been accepted`);
      const providerSid = jobIdOf(answer.value, action.response);
      if (providerSid === undefined) {
        throw new UncertainOutcomeError(`send: provider answered HTTP ${response.status} without a job id at "${action.response?.job_id ?? 'id'}"; the fax may have been accepted`);
      }
      ctx.logger.info('fax accepted by provider', { job_id: request.jobId, provider_sid: providerSid });
      return { ...statusOf(answer.value, action.response, block, 'queued'), providerSid };
    },

    async status(ref: FaxReference): Promise<FaxProviderStatus | null> {
      const action = block.actions.status;
      if (!action) throw new RejectedError('status: this provider\'s manifest defines no "status" action, so results cannot be polled');
      if (!ref.providerSid) return null;
      const { response, text } = await call('status', action, { to: ref.to, job_id: ref.jobId, provider_sid: ref.providerSid }, undefined);
      if (response.status === 404) return null;
      if (!response.ok) throw answerError('status', response, providerMessage(text, action.response));
      const answer = parseAnswer(text);
      if (!answer.ok) throw new UncertainOutcomeError(`status: provider answered HTTP ${response.status} with a body that is not JSON`);
      return { ...statusOf(answer.value, action.response, block, block.default_status ?? 'in_progress'), providerSid: ref.providerSid };
    },
  };

  const callback = block.callback;
  if (callback) {
    fax.verifyWebhook = (request) => verifyCallback(callback, ctx.settings, request);
    fax.parseCallback = (request) => parseCallback(block, callback, request);
  }

  const cancel = block.actions.cancel;
  if (cancel) {
    fax.cancel = async (ref: FaxReference): Promise<void> => {
      if (!ref.providerSid) throw new RejectedError('cancel: the fax has no provider id yet, so it cannot be cancelled');
      const { response, text } = await call('cancel', cancel, { to: ref.to, job_id: ref.jobId, provider_sid: ref.providerSid }, undefined);
      if (!response.ok) throw answerError('cancel', response, providerMessage(text, cancel.response));
    };
  }
  return fax;
}
