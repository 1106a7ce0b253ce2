import { z } from 'zod';

/**
 * Limits a key may carry beside its scopes: each a name a surface declares (in its vocabulary,
 * `keyLimits`) and a list of values the surface interprets (the fax surface's mailboxes). The
 * platform stores and shows them; a key without a limit of a name is not confined by it.
 */
export type KeyLimits = Readonly<Record<string, readonly string[]>>;

/** What a surface declares: each limit's name with what it confines (shown in /openapi.json). */
export type KeyLimitDeclarations = Readonly<Record<string, string>>;

const LimitValues = z.array(z.string().trim().min(1).max(100)).min(1).max(100);

/** The `limits` object of POST and PATCH /admin/api-keys: the declared names, each optional. */
export function keyLimitsSchema(declared: KeyLimitDeclarations) {
  const fields = Object.fromEntries(Object.entries(declared).map(([name, description]) => [name, LimitValues.optional().describe(description)]));
  return z.object(fields).strict().describe('Limits beside the scopes; a name left out does not limit the key');
}

/** Merges the surfaces' declarations; a name declared twice is a programming error. */
export function mergeKeyLimits(all: ReadonlyArray<KeyLimitDeclarations | undefined>): KeyLimitDeclarations {
  const merged: Record<string, string> = {};
  for (const declared of all) {
    for (const [name, description] of Object.entries(declared ?? {})) {
      if (Object.hasOwn(merged, name)) throw new Error(`the key limit "${name}" is declared twice`);
      merged[name] = description;
    }
  }
  return merged;
}

/** The stored form: JSON, null when the key has no limit. */
export function storedLimits(limits: KeyLimits | undefined): string | null {
  const present = Object.entries(limits ?? {}).filter(([, values]) => values.length > 0);
  return present.length ? JSON.stringify(Object.fromEntries(present.map(([name, values]) => [name, [...new Set(values)]]))) : null;
}

export function parseLimits(stored: string | null): KeyLimits {
  return stored ? (JSON.parse(stored) as KeyLimits) : {};
}

/**
 * Limits the caller cannot hand on: a caller confined to some values of a name may only give a
 * key that name with a subset of them. Each entry names the limit and what it would widen.
 */
export function limitsBeyondCaller(caller: KeyLimits, wanted: KeyLimits): string[] {
  const beyond: string[] = [];
  for (const [name, held] of Object.entries(caller)) {
    const asked = wanted[name];
    if (!asked) beyond.push(`${name} (unlimited)`);
    else {
      const extra = asked.filter((v) => !held.includes(v));
      if (extra.length) beyond.push(`${name} ${extra.join(', ')}`);
    }
  }
  return beyond;
}
