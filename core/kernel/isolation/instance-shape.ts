import type { PluginInstance } from '../../sdk/plugin.js';

/** A provider as it crosses to the host: its method names and its data members (`directions`, `pushesResults`). */
export interface ProviderShape {
  methods: string[];
  data: Record<string, unknown>;
}

/** What the host learns of a started isolated plugin: enough to build the same providers as proxies. */
export interface InstanceShape {
  providers: Record<string, ProviderShape>;
  health: boolean;
}

export function describeInstance(instance: PluginInstance): InstanceShape {
  const providers: Record<string, ProviderShape> = {};
  for (const [kind, provider] of Object.entries(instance.providers)) if (provider) providers[kind] = describeProvider(provider as object);
  return { providers, health: typeof instance.health === 'function' };
}

/** Every member up the prototype chain (Object's own left out): functions are methods, the rest data. */
function describeProvider(provider: object): ProviderShape {
  const methods = new Set<string>();
  const data: Record<string, unknown> = {};
  const chain: object[] = [];
  for (let o: object | null = provider; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) chain.push(o);
  for (const o of chain) {
    for (const name of Object.getOwnPropertyNames(o)) {
      if (name === 'constructor' || methods.has(name) || name in data) continue;
      const value = (provider as Record<string, unknown>)[name];
      if (typeof value === 'function') methods.add(name);
      else if (value !== undefined) data[name] = value;
    }
  }
  return { methods: [...methods], data };
}
