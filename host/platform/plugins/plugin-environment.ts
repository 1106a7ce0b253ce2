import type { ConfigRegistry } from '../config/registry.js';
import { envNameOf } from '../config/sections.js';

/**
 * Host configuration keys that plugins read through their declared environment variables:
 * the hosted judge's URL, and the gateway's own DATABASE_URL (a retrieval backend that keeps its
 * index in the gateway's database declares it as the default of its own URL setting).
 */
const BRIDGED_KEYS = ['system_one.hosted_url', 'DATABASE_URL'] as const;
type BridgedKey = (typeof BRIDGED_KEYS)[number];
const BRIDGED = new Map<string, BridgedKey>(BRIDGED_KEYS.map((key) => [envNameOf(key), key]));

/**
 * The environment plugins see: the process environment, where a few variables answer with the
 * effective value of a host configuration key, so `system_one.hosted_url` set in the JSON
 * config file reaches the hosted judge plugin as SYSTEM_ONE__HOSTED_URL, and DATABASE_URL from
 * the env file or config file reaches a plugin that declares DATABASE_URL (the environment still
 * wins, as in the registry). A plugin sees only the variables its settings declare. `onChange` tells the caller when such a key changed, to rescan.
 */
export function pluginEnvironment(base: NodeJS.ProcessEnv, config: ConfigRegistry): {
  env: NodeJS.ProcessEnv;
  onChange(listener: () => void): void;
  /** True when a bridged variable answers with a value of the config file (written at run time), not the environment. */
  runtimeVariable(name: string): boolean;
} {
  const bridged = (name: string | symbol): string | undefined => {
    const key = typeof name === 'string' ? BRIDGED.get(name) : undefined;
    if (!key) return undefined;
    const value = config.get(key);
    return value === undefined || value === null || value === '' ? undefined : String(value);
  };
  const env = new Proxy(base, {
    get: (target, name) => (typeof name === 'string' && BRIDGED.has(name) ? bridged(name) : Reflect.get(target, name)),
    has: (target, name) => (typeof name === 'string' && BRIDGED.has(name) ? bridged(name) !== undefined : Reflect.has(target, name)),
  });
  const listeners: Array<() => void> = [];
  config.onChange((keys) => {
    if (!keys.some((k) => (BRIDGED_KEYS as readonly string[]).includes(k))) return;
    for (const listener of listeners) listener();
  });
  const runtimeVariable = (name: string) => {
    const key = BRIDGED.get(name);
    return key !== undefined && config.effective().source[key] !== 'env';
  };
  return { env, onChange: (listener) => listeners.push(listener), runtimeVariable };
}
