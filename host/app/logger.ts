import { pino, type Logger, type DestinationStream } from 'pino';

/**
 * Structured JSON logs. Known secret-bearing fields are redacted by path; plugin loggers mask
 * their secret values too, and phone numbers are masked by the code that logs them.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'switchboard' },
      redact: {
        paths: ['req.headers["x-api-key"]', 'req.headers.authorization', 'headers["x-api-key"]', 'headers.authorization', '*.password', '*.secret', '*.token', '*.apiKey', '*.api_key'],
        censor: '***',
      },
    },
    destination,
  );
}
