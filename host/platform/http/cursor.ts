import { z } from 'zod';
import { invalid } from './error-catalogue.js';

/** Keyset cursors over (created, id), opaque to clients (base64url JSON). */
export function encodeCursor(created: string | number, id: string): string {
  return Buffer.from(JSON.stringify([created, id])).toString('base64url');
}

export function decodeCursor<T extends string | number>(cursor: string | undefined, kind: 'string' | 'number'): { created: T; id: string } | undefined {
  if (cursor === undefined) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === kind && typeof value[1] === 'string') return { created: value[0] as T, id: value[1] };
  } catch {
    // fall through
  }
  throw invalid('cursor', 'not a cursor this API returned', 400);
}

export const PageQuery = {
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(500).optional().describe('next_cursor of the previous page'),
};
