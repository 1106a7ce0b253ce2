import { pino, type Logger, type DestinationStream } from 'pino';
import { maskNumbers } from '../../../core/sdk/index.js';
import { maskRecordNumbers } from './text-masking.js';
import { prettyLogStream } from './pretty-log-line.js';

export type LogFormat = 'auto' | 'json' | 'pretty';

/** `auto` reads as people do at a terminal and as collectors do anywhere else. */
export function resolvedLogFormat(format: LogFormat, stream: { isTTY?: boolean } = process.stdout): 'json' | 'pretty' {
  return format === 'auto' ? (stream.isTTY ? 'pretty' : 'json') : format;
}

/**
 * Structured logs: JSON lines, or readable lines with `format` pretty (the same records). Known secret-bearing fields are redacted by path; plugin loggers mask
 * their secret values too. Phone-number-length digit runs are masked in every text field and
 * message (provider error texts echo destinations), whoever logs them: host or plugin.
 */
export function createLogger(level: string, destination?: DestinationStream, format: LogFormat = 'json'): Logger {
  const pretty = resolvedLogFormat(format, destination ? {} : process.stdout) === 'pretty';
  const target: DestinationStream | undefined = pretty ? prettyLogStream(destination ?? process.stdout) : destination;
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
    target,
  );
}
