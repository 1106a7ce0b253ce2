import { pino, type Logger, type DestinationStream } from 'pino';
import { maskNumbers } from '../../../core/sdk/index.js';
import { maskRecordNumbers } from './text-masking.js';
import { maskSecretLines, maskSecretsDeep } from './secret-detector.js';
import { formattedDestination, type LogFormat } from './log-format.js';

/**
 * Structured logs, JSON or readable (`format`). Known secret-bearing fields are redacted by path,
 * and every text goes through the secret detector (`secret-detector.ts`); plugin loggers mask
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
      formatters: { log: (fields) => maskSecretsDeep(maskRecordNumbers(fields)) },
      hooks: {
        logMethod(args, method) {
          // An error logged alone lends its message as the line's message: pass it as one, so it is masked too.
          const given: unknown[] = args[0] instanceof Error && typeof args[1] !== 'string' ? [args[0], args[0].message, ...args.slice(1)] : args;
          method.apply(this, given.map((arg) => (typeof arg === 'string' ? maskSecretLines(maskNumbers(arg)) : arg)) as Parameters<typeof method>);
        },
      },
    },
    formattedDestination(format, destination),
  );
}
