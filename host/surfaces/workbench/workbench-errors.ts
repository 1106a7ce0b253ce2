import { defineError, errorVocabulary } from '../../platform/errors/error-vocabulary.js';

/** The workbench's error codes: the lab, judges, alerts, container controls. Their HTTP answers: http/workbench-http-errors.ts. */
export const workbenchErrors = errorVocabulary('workbench', {
  lab_run_not_found: defineError<{ id: string }>({
    meaning: 'No lab run has this id.',
    message: ({ id }) => `lab run ${id} not found`,
  }),
  lab_run_not_failed: defineError<{ id: string }>({
    meaning: 'Only a failed lab run is retried.',
    message: ({ id }) => `lab run ${id} did not fail; only a failed run is retried`,
  }),
  judge_timeout: defineError<{ reason: string }>({
    meaning: 'The judgment backend (SystemOneError `timeout`) did not answer in time; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (timeout): ${reason}`,
  }),
  judge_unavailable: defineError<{ reason: string }>({
    meaning: 'The judgment backend (SystemOneError `unavailable`) is not active or cannot be reached; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (unavailable): ${reason}`,
  }),
  judge_rate_limited: defineError<{ reason: string }>({
    meaning: 'The judgment backend (SystemOneError `rate_limited`) refused for its rate limit; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (rate_limited): ${reason}`,
  }),
  judge_http_error: defineError<{ reason: string }>({
    meaning: 'The judgment backend (SystemOneError `http_error`) answered with an HTTP error; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (http_error): ${reason}`,
  }),
  judge_invalid_response: defineError<{ reason: string }>({
    meaning: 'The judgment backend (SystemOneError `invalid_response`) answered something that is not a judgment; nothing falls back.',
    message: ({ reason }) => `the judge could not answer (invalid_response): ${reason}`,
  }),
  judge_cancelled: defineError<{ reason: string }>({
    meaning: 'The judgment backend (SystemOneError `cancelled`) was cancelled (the gateway is stopping); nothing falls back.',
    message: ({ reason }) => `the judge could not answer (cancelled): ${reason}`,
  }),
  alert_target_not_found: defineError<{ target: string }>({
    meaning: 'No alert target has this id.',
    message: ({ target }) => `no alert target "${target}"; see GET /admin/integrations/webhooks`,
  }),
  remote_engine_refused: defineError<{ reason: string }>({
    meaning: 'DOCKER_HOST names a remote container engine; container controls act on the local one only.',
    message: ({ reason }) => reason,
  }),
  service_not_found: defineError<{ reason: string }>({
    meaning: 'The compose service is not configured, or has no container in the project.',
    message: ({ reason }) => reason,
  }),
  service_ambiguous: defineError<{ reason: string }>({
    meaning: 'More than one managed container matches the service.',
    message: ({ reason }) => reason,
  }),
  confirmation_required: defineError<{ reason: string }>({
    meaning: 'Acting on a core service needs `confirm` in the body.',
    message: ({ reason }) => reason,
  }),
  ownership_changed: defineError<{ reason: string }>({
    meaning: 'The container stopped being managed by this project between lookup and action.',
    message: ({ reason }) => reason,
  }),
  engine_unreachable: defineError<{ reason: string }>({
    meaning: 'No container engine answers.',
    message: ({ reason }) => reason,
  }),
  container_action_failed: defineError<{ reason: string }>({
    meaning: 'The container engine refused or failed the action.',
    message: ({ reason }) => reason,
  }),
});
