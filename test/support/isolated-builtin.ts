import path from 'node:path';
import { ROOT } from './gateway.js';

/** A built-in plugin's compiled code run in a child process, as PLUGIN_ISOLATION=<id>=process runs it (the kit's `isolation` option). */
export const isolatedBuiltin = (id: string) => ({ mode: 'process' as const, entryFile: path.join(ROOT, 'dist/plugins', id, 'index.js') });
