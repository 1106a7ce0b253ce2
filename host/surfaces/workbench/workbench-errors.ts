import { isSystemOneError } from '../../../core/sdk/judge/index.js';
import { httpError, type ErrorCode } from '../../platform/http/error-catalogue.js';
import type { HttpError } from '../../platform/http/errors.js';
import { ContainerControlError } from './containers/container-controls.js';
import { RemoteEngineRefusedError } from './containers/engine.js';

const CONTAINER_CODES: Record<ContainerControlError['kind'], ErrorCode> = {
  not_found: 'service_not_found',
  ambiguous: 'service_ambiguous',
  confirmation_required: 'confirmation_required',
  ownership_changed: 'ownership_changed',
  engine_unreachable: 'engine_unreachable',
  action_failed: 'container_action_failed',
};

/** The workbench's domain errors (containers, judges) as HTTP answers. */
export function workbenchErrorToHttp(err: unknown): HttpError | undefined {
  if (err instanceof RemoteEngineRefusedError) return httpError('remote_engine_refused', { reason: err.message });
  if (err instanceof ContainerControlError) return httpError(CONTAINER_CODES[err.kind], { reason: err.message });
  // the judge is an upstream of the request: whatever went wrong there is a 502 naming the outcome
  if (isSystemOneError(err)) return httpError(`judge_${err.outcome}`, { reason: err.message });
  return undefined;
}
