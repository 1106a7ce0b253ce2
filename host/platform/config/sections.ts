import { SECTION_NAMES } from './model/index.js';

// Nested configuration sections (`system_one.provider`) are flat dotted keys inside the
// registry, nested objects in the JSON config file and in request bodies, and upper-case paths
// with `__` between levels in the environment (`SYSTEM_ONE__PROVIDER`).

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{system_one: {provider: "x"}}` → `{"system_one.provider": "x"}`; other keys pass through. */
export function flattenSections(input: Record<string, unknown>): Record<string, unknown> {
  const flat: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (SECTION_NAMES.has(key) && isPlainObject(value)) {
      for (const [child, childValue] of Object.entries(value)) flat[`${key}.${child}`] = childValue;
    } else {
      flat[key] = value;
    }
  }
  return flat;
}

/** The inverse of flattenSections, keeping the order in which keys first appear. */
export function nestSections(flat: Record<string, unknown>): Record<string, unknown> {
  const nested: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(flat)) {
    const dot = key.indexOf('.');
    const section = dot > 0 ? key.slice(0, dot) : '';
    if (!SECTION_NAMES.has(section)) {
      nested[key] = value;
      continue;
    }
    const child = Object.hasOwn(nested, section) && isPlainObject(nested[section]) ? (nested[section] as Record<string, unknown>) : {};
    child[key.slice(dot + 1)] = value;
    nested[section] = child;
  }
  return nested;
}

/** The environment spelling of a key: flat keys as they are, nested ones `SECTION__KEY`. */
export function envNameOf(key: string): string {
  return key.includes('.') ? key.toUpperCase().replaceAll('.', '__') : key;
}
