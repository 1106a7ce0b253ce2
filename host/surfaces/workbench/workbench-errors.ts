import { defineError, errorVocabulary } from '../../platform/errors/error-vocabulary.js';

/** The workbench's error codes: the lab, judges, alerts, container controls. Their HTTP answers: http/workbench-http-errors.ts. */
export const workbenchErrors = errorVocabulary('workbench', {
  lab_run_not_found: defineError<{ id: string }>('No lab run has this id.', ({ id }) => `lab run ${id} not found`),
  lab_run_not_failed: defineError<{ id: string }>('Only a failed lab run is retried.', ({ id }) => `lab run ${id} did not fail; only a failed run is retried`),
  alert_target_not_found: defineError<{ target: string }>('No alert target has this id.', ({ target }) => `no alert target "${target}"; see GET /admin/integrations/webhooks`),
  remote_engine_refused: defineError<{ reason: string }>('DOCKER_HOST names a remote container engine; container controls act on the local one only.', ({ reason }) => reason),
  service_not_found: defineError<{ reason: string }>('The compose service is not configured, or has no container in the project.', ({ reason }) => reason),
  service_ambiguous: defineError<{ reason: string }>('More than one managed container matches the service.', ({ reason }) => reason),
  confirmation_required: defineError<{ reason: string }>('Acting on a core service needs `confirm` in the body.', ({ reason }) => reason),
  ownership_changed: defineError<{ reason: string }>('The container stopped being managed by this project between lookup and action.', ({ reason }) => reason),
  engine_unreachable: defineError<{ reason: string }>('No container engine answers.', ({ reason }) => reason),
  container_action_failed: defineError<{ reason: string }>('The container engine refused or failed the action.', ({ reason }) => reason),
});
