import { envOnly, secret } from '../../../../core/sdk/settings.js';
import { decimal, flag, integer, optionalText, text } from '../../../platform/config/model/field-kinds.js';
import { checkWebhookTargets } from './webhook-targets.js';

/** Configuration keys of alerts: conditions, the severity filter, and webhook delivery. */
export const AlertKeys = {
  ALERT_NOTIFY_SEVERITIES: text()
    .default('critical,warning')
    .describe('Comma-separated severities delivered (labels emitted: critical, warning, info). An alert of another severity is not delivered and is logged and counted, never dropped silently.'),
  ALERT_INCLUDE_RESOLVED: flag().default(true).describe('Send a resolved notice (status "resolved") once when a firing alert clears (1 or 0).'),
  ALERT_WEBHOOK_TIMEOUT: decimal(0.1, 300).default(10).describe('Seconds a receiver has to answer a delivery; no answer in time is a transient failure, retried.'),
  WEBHOOK_TARGETS: secret(
    optionalText()
      .superRefine(checkWebhookTargets)
      .describe(
        'Comma-separated HTTPS URLs every delivered alert is POSTed to (the generic JSON notice). Each URL runs as an instance of the default alert sink, a plugin of its own (target plugin:<sink>-<12 hex of the URL hash>). Secret: masked everywhere. A plain http URL is refused (422 on every write path) unless ALERT_ALLOW_HTTP_LOOPBACK allows a loopback target.',
      ),
  ),
  ALERT_WEBHOOK_CA_FILE: envOnly(optionalText().describe('PEM file of extra certificate authorities trusted for HTTPS alert receivers (besides the system ones).')),
  ALERT_EVAL_INTERVAL_SECONDS: decimal(0.05, 3600).default(30).describe('Seconds between evaluations of the alert conditions.'),
  ALERT_REPEAT_MINUTES: decimal(0.01).default(60).describe('A firing alert is sent again every this many minutes until it clears.'),
  ALERT_DELIVERY_MAX_ATTEMPTS: integer(1, 100).default(6).describe('Delivery attempts of one notice to one target before it is marked failed (transient failures only; a 4xx fails at once).'),
  ALERT_RETRY_BASE_MS: integer(10).default(2000).describe('First retry delay of a failed delivery; doubles each attempt, at most 5 minutes.'),
  ALERT_RUN_COSTS_MINUTES: decimal(0.01).default(60).describe('Run-accounting alert (warning): fires when an index or schema-proposal run ended this long ago and its costs are still pending or incomplete.'),
  ALERT_JUDGE_ERROR_RATE: decimal(0, 1).default(0.2).describe('Error-rate alert of each judge reached over the network (warning, labelled by plugin id): share of its failed calls in the last 15 minutes.'),
  ALERT_JUDGE_MIN_CALLS: integer(1).default(10).describe('Calls a judge reached over the network needs in the window before its error-rate alert can fire.'),
  ALERT_SELFHOSTED_UNSCRAPABLE_MINUTES: decimal(0.01).default(5).describe('Alert of each judge served on this machine, such as the self-hosted judge server (critical, labelled by plugin id): fires when it has not responded this long while it had traffic in the last ALERT_SELFHOSTED_TRAFFIC_MINUTES.'),
  ALERT_SELFHOSTED_TRAFFIC_MINUTES: decimal(0.01).default(30).describe('Traffic window of the alert of a judge served on this machine.'),
};
