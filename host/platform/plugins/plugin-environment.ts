import type { ConfigRegistry } from '../config/registry.js';
import { envNameOf } from '../config/sections.js';

/** Host configuration keys that plugins read through their declared environment variables. */
const BRIDGED = new Map<string, 'system_one.hosted_url'>([[envNameOf('system_one.hosted_url'), 'system_one.hosted_url']]);

/**
 * The environment plugins see: the process environment, where a few variables answer with the
 * effective value of a host configuration key, so `system_one.hosted_url` set in the JSON
 * config file reaches the hosted judge plugin as SYSTEM_ONE__HOSTED_URL (the environment still
 * wins, as in the registry). `onChange` tells the caller when such a key changed, to rescan.
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
    if (!keys.some((k) => [...BRIDGED.values()].includes(k as 'system_one.hosted_url'))) return;
    for (const listener of listeners) listener();
  });
  const runtimeVariable = (name: string) => {
    const key = BRIDGED.get(name);
    return key !== undefined && config.effective().source[key] !== 'env';
  };
  return { env, onChange: (listener) => listeners.push(listener), runtimeVariable };
}
