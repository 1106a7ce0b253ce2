import path from 'node:path';
import { ROOT } from './gateway.js';

/** A built-in plugin's compiled code run isolated, as PLUGIN_ISOLATION=<id>=<mode> runs it (the kit's `isolation` option). */
export const isolatedBuiltin = (id: string, mode: 'process' | 'worker' = 'process') => ({ mode, entryFile: path.join(ROOT, 'dist/plugins', id, 'index.js') });
