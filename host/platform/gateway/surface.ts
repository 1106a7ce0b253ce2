import type { SettingsSection } from '../config/settings-section.js';
import type { OwnedMigrations } from '../db/migrations.js';
import type { HttpErrorMapping } from '../http/error-mapping.js';
import type { Platform } from './platform.js';

/**
 * What a surface brings besides its code: its error codes with their HTTP answers, its
 * configuration keys, its tables' migrations. The platform merges them (one catalogue of errors,
 * one configuration model, one migrator) and names none of them.
 */
export interface SurfaceVocabulary {
  readonly name: string;
  readonly errors?: HttpErrorMapping<any>;
  readonly settings?: SettingsSection;
  readonly migrations?: OwnedMigrations;
}

/**
 * A surface of the gateway (fax, code search, workbench), or an adapter installed like one (MCP):
 * its vocabulary, and its install, which registers its routes, its readiness checks, the ports it
 * provides and its background work, and returns the handles its tests and the CLI use.
 */
export interface Surface<Handles> extends SurfaceVocabulary {
  install(platform: Platform): Promise<Handles> | Handles;
}

export type SurfaceHandles<S extends Record<string, Surface<unknown>>> = { [K in keyof S]: Awaited<ReturnType<S[K]['install']>> };
