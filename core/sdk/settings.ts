import { z } from 'zod';

const SECRET = Symbol.for('switchboard.secret');
const ENV_ONLY = Symbol.for('switchboard.envOnly');

/** Marks a settings field as secret: write-only over HTTP, masked in logs and responses. */
export function secret<T extends z.ZodType>(schema: T): T {
  (schema as unknown as Record<symbol, boolean>)[SECRET] = true;
  return schema;
}

/**
 * Marks a settings field as environment-only: the host refuses to write it over HTTP (a
 * filesystem path, say, that must not be request-chosen). Give it an environment variable.
 */
export function envOnly<T extends z.ZodType>(schema: T): T {
  (schema as unknown as Record<symbol, boolean>)[ENV_ONLY] = true;
  return schema;
}

/** The mask shown in place of a secret's value; sending it back means "unchanged". */
export const SECRET_MASK = '***';

/** True when a field (or the field inside optional/default/nullable wrappers) is secret. */
export function isSecretSchema(schema: z.ZodType): boolean {
  return hasMark(schema, SECRET);
}

function hasMark(schema: z.ZodType, mark: symbol): boolean {
  let current: unknown = schema;
  for (let depth = 0; depth < 8 && current; depth++) {
    if ((current as Record<symbol, boolean>)[mark]) return true;
    const def = (current as { _zod?: { def?: { innerType?: unknown; in?: unknown } } })._zod?.def;
    current = def?.innerType ?? def?.in;
  }
  return false;
}

/** The names of the secret fields of an object settings schema. */
export function secretFields(schema: z.ZodType | undefined): string[] {
  return markedFields(schema, SECRET);
}

/** The names of the environment-only fields of an object settings schema. */
export function envOnlyFields(schema: z.ZodType | undefined): string[] {
  return markedFields(schema, ENV_ONLY);
}

function markedFields(schema: z.ZodType | undefined, mark: symbol): string[] {
  if (!schema || !(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([, field]) => hasMark(field, mark))
    .map(([name]) => name);
}
