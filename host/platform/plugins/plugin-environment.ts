import type { ConfigRegistry, ConfigValues } from '../config/registry.js';
import { envNameOf } from '../config/sections.js';

/**
 * The environment plugins see: the process environment, where the variables of the host keys
 * marked visible to plugins answer with the key's effective value. So a nested key set in the
 * JSON config file reaches a plugin as SECTION__KEY, and DATABASE_URL from the env file or config
 * file reaches a plugin that declares DATABASE_URL (the environment still wins, as in the
 * registry). A plugin sees only the variables its settings declare. `onChange` tells the caller
 * when such a key changed, to rescan.
 */
export function pluginEnvironment(base: NodeJS.ProcessEnv, config: ConfigRegistry<ConfigValues>): {
  env: NodeJS.ProcessEnv;
  onChange(listener: () => void): void;
  /** True when a bridged variable answers with a value of the config file (written at run time), not the environment. */
  runtimeVariable(name: string): boolean;
} {
  const bridgedKeys = config.model.pluginVisibleKeys;
  const BRIDGED = new Map(bridgedKeys.map((key) => [envNameOf(key), key]));
  const bridged = (name: string | symbol): string | undefined => {
    const key = typeof name === 'string' ? BRIDGED.get(name) : undefined;
    if (!key) return undefined;
    const value = config.effective().config[key];
    return value === undefined || value === null || value === '' ? undefined : String(value);
  };
  const env = new Proxy(base, {
    get: (target, name) => (typeof name === 'string' && BRIDGED.has(name) ? bridged(name) : Reflect.get(target, name)),
    has: (target, name) => (typeof name === 'string' && BRIDGED.has(name) ? bridged(name) !== undefined : Reflect.has(target, name)),
  });
  const listeners: Array<() => void> = [];
  config.onChange((keys) => {
    if (!keys.some((k) => bridgedKeys.includes(k))) return;
    for (const listener of listeners) listener();
  });
  const runtimeVariable = (name: string) => {
    const key = BRIDGED.get(name);
    return key !== undefined && config.effective().source[key] !== 'env';
  };
  return { env, onChange: (listener) => listeners.push(listener), runtimeVariable };
}
