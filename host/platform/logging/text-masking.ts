import { maskNumbers } from '../../../core/sdk/index.js';

/**
 * Fields that name things rather than say things: ids, paths, addresses, times. Their digit
 * runs are not phone numbers (a UUID holds 12-digit runs) and masking them would make audit
 * and log records useless for finding what they are about. Every other text is masked.
 */
const IDENTIFIER_FIELDS = new Set([
  'ts', 'time', 'event', 'level', 'service', 'pid', 'hostname',
  'job_id', 'jobId', 'key_id', 'keyId', 'provider_sid', 'providerSid', 'inbound_id', 'id', 'plugin', 'pluginId', 'backend',
  'generation', 'scope', 'scopes', 'method', 'path', 'url', 'ip', 'host', 'port', 'bucket', 'by', 'file', 'dir', 'manifest', 'manifest_path',
  'created_at', 'updated_at', 'reqId', 'req', 'res',
]);

/**
 * A copy of a record (an audit record, a log line's fields) with phone-number-length digit
 * runs masked in every text field but the identifier ones, nested objects included.
 */
export function maskRecordNumbers<T>(value: T, key?: string, depth = 0): T {
  if (key !== undefined && IDENTIFIER_FIELDS.has(key)) return value;
  if (typeof value === 'string') return maskNumbers(value) as T;
  if (depth > 5 || value === null || typeof value !== 'object') return value;
  if (value instanceof Error) return { ...value, name: value.name, message: maskNumbers(value.message), ...(value.stack ? { stack: maskNumbers(value.stack) } : {}) } as T;
  if (Array.isArray(value)) return value.map((v) => maskRecordNumbers(v, undefined, depth + 1)) as T;
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = maskRecordNumbers(v, k, depth + 1);
  return out as T;
}

/** What logs and admin views show of a number: its last four digits. */
export function maskPhone(number: string | null | undefined): string {
  if (!number) return '';
  const digits = number.replace(/\D/g, '');
  return `***${digits.slice(-4)}`;
}
