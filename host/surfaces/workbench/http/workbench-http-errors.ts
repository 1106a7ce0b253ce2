import { DomainError } from '../../../platform/errors/domain-error.js';
import type { CodeOf } from '../../../platform/errors/error-vocabulary.js';
import { httpErrorMapping } from '../../../platform/http/error-mapping.js';
import { ContainerControlError } from '../containers/container-controls.js';
import { RemoteEngineRefusedError } from '../containers/engine.js';
import { workbenchErrors } from '../workbench-errors.js';

/** The workbench's codes as HTTP answers, and the container engine's errors as its codes. */
export const WORKBENCH_HTTP_ERRORS = httpErrorMapping(
  workbenchErrors,
  {
    lab_run_not_found: 404,
    lab_run_not_failed: 409,
    alert_target_not_found: 404,
    remote_engine_refused: 403,
    service_not_found: 404,
    service_ambiguous: 409,
    confirmation_required: 409,
    ownership_changed: 409,
    engine_unreachable: 503,
    container_action_failed: 502,
  },
  translateWorkbenchError,
);

const CONTAINER_CODES: Record<ContainerControlError['kind'], CodeOf<typeof workbenchErrors>> = {
  not_found: 'service_not_found',
  ambiguous: 'service_ambiguous',
  confirmation_required: 'confirmation_required',
  ownership_changed: 'ownership_changed',
  engine_unreachable: 'engine_unreachable',
  action_failed: 'container_action_failed',
};

function translateWorkbenchError(err: unknown): DomainError | undefined {
  if (err instanceof RemoteEngineRefusedError) return workbenchErrors.error('remote_engine_refused', { reason: err.message });
  // every container code's message is the reason itself
  if (err instanceof ContainerControlError) return new DomainError(CONTAINER_CODES[err.kind], err.message);
  return undefined;
}
