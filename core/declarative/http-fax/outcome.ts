import { PluginError, RejectedError } from '../../sdk/index.js';
import { transportFailure, type CallSubject } from '../../sdk/fax/index.js';
import { RequestRenderError } from '../template/template-render.js';

/**
 * What a failed call means for the host: the SDK's outcome rules, as for code plugins. Only what
 * the manifest itself causes is said here: a template that cannot be rendered, a host outside
 * the manifest's egress list. Messages never carry the URL (it may hold credentials).
 */
export function failureOf(err: unknown, subject: CallSubject, timeoutMs: number): PluginError {
  const what = subject.action ?? 'send';
  if (err instanceof RequestRenderError) return new RejectedError(`${what}: ${err.message}`, { cause: err });
  if ((err as PluginError)?.code === 'egress_denied') {
    const host = (err as { host?: string }).host ?? 'unknown';
    return new RejectedError(`${what}: host "${host}" is not in the manifest's egress list, so the request was refused (not retried)`, { cause: err });
  }
  if (err instanceof PluginError) return err;
  return transportFailure(err, timeoutMs, subject);
}
