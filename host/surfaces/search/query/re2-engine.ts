import { createRequire } from 'node:module';
import type { RE2 } from 're2-wasm';

let engine: typeof RE2 | undefined;

/**
 * A new RE2 expression. re2-wasm instantiates its WebAssembly (about 16 MB of memory) when it is
 * required, so it loads on the first regular expression, not with the gateway; `require` is
 * synchronous, so concurrent first uses share one instance.
 */
export function newRE2(pattern: string, flags: string): RE2 {
  engine ??= (createRequire(import.meta.url)('re2-wasm') as typeof import('re2-wasm')).RE2;
  return new engine(pattern, flags);
}
