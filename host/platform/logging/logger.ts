import { pino, type Logger, type DestinationStream } from 'pino';
import { maskNumbers } from '../../../core/sdk/index.js';
import { maskRecordNumbers } from './text-masking.js';
import { formattedDestination, type LogFormat } from './log-format.js';

/**
 * Structured logs, JSON or readable (`format`). Known secret-bearing fields are redacted by path; plugin loggers mask
 * their secret values too. Phone-number-length digit runs are masked in every text field and
 * message (provider error texts echo destinations), whoever logs them: host or plugin.
 */
export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  return pino(
    {
      level,
      base: { service: 'switchboard' },
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization', '*.password', '*.secret', '*.token', '*.apiKey', '*.api_key'],
        censor: '***',
      },
      formatters: { log: (fields) => maskRecordNumbers(fields) },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? maskNumbers(arg) : arg)) as Parameters<typeof method>);
        },
      },
    },
    formattedDestination(format, destination),
  );
}
