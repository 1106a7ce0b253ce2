import { EventEmitter } from 'node:events';
import type { PluginState } from './plugin-record.js';

/** What the kernel tells the host, one payload type per event name. */
export interface KernelEventMap {
  /** A plugin changed state. */
  state: [{ pluginId: string; state: PluginState }];
  /** A new generation became active. */
  generation: [{ pluginId: string; generation: number }];
  /** A replaced, disabled or removed generation finished draining and stopped. */
  'generation-stopped': [{ pluginId: string; generation: number }];
  /** A plugin's manifest left the search path. */
  removed: [{ pluginId: string }];
  /** A plugin's `ctx.events.emit(topic, payload)`. */
  'plugin-event': [{ pluginId: string; generation: number; topic: string; payload: unknown }];
}

/** The kernel's typed event emitter: listeners get the payload type of their event. */
export class KernelEvents extends EventEmitter<KernelEventMap> {
  constructor() {
    super();
    this.setMaxListeners(100);
  }
}
