import type { Platform } from './platform.js';

/**
 * A surface of the gateway (fax, code search, workbench). Its install registers its routes, its
 * domain-error mapper, its readiness checks, the ports it provides and its background work, and
 * returns the handles its tests and the CLI use.
 */
export interface Surface<Handles> {
  readonly name: string;
  install(platform: Platform): Promise<Handles> | Handles;
}

export type SurfaceHandles<S extends Record<string, Surface<unknown>>> = { [K in keyof S]: Awaited<ReturnType<S[K]['install']>> };
