import type { Kysely } from 'kysely';
import type { PlatformConfig } from '../config/model/index.js';
import type { ConfigRegistry } from '../config/registry.js';
import type { SectionValues, SettingsSection } from '../config/settings-section.js';
import type { OpenedDatabase } from '../db/database.js';
import type { OwnedMigrations } from '../db/migrations.js';
import type { PlatformTables } from '../db/schema.js';
import type { HttpErrorMapping } from '../http/error-mapping.js';
import type { KeyLimitDeclarations } from '../auth/key-limits.js';
import type { Platform } from './platform.js';

/**
 * What a surface brings besides its code: its error codes with their HTTP answers, its
 * configuration keys, its tables' migrations, the limits keys may carry for it. The platform merges them (one catalogue of errors,
 * one configuration model, one migrator) and names none of them.
 */
export interface SurfaceVocabulary {
  readonly name: string;
  readonly errors?: HttpErrorMapping<any>;
  readonly settings?: SettingsSection;
  readonly migrations?: OwnedMigrations;
  /** Limits API keys may carry beside their scopes, which this surface interprets (`keyLimitOf`). */
  readonly keyLimits?: KeyLimitDeclarations;
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

/** Installs each surface in order; what each install returned, by surface name. */
export async function installSurfaces<S extends Record<string, Surface<unknown>>>(platform: Platform, surfaces: S): Promise<SurfaceHandles<S>> {
  const handles: Record<string, unknown> = {};
  for (const [name, surface] of Object.entries(surfaces)) handles[name] = await surface.install(platform);
  return handles as SurfaceHandles<S>;
}

/** The platform as a surface sees it: the configuration typed with its own keys too, the database with its own tables. */
export type SurfacePlatform<S extends SettingsSection, T> = Omit<Platform, 'config' | 'database'> & {
  readonly config: ConfigRegistry<PlatformConfig & SectionValues<S>>;
  readonly database: Omit<OpenedDatabase, 'db'> & { readonly db: Kysely<PlatformTables & T> };
};

/**
 * Declares a surface whose install sees its own settings and tables (`T`, the surface's table
 * types) typed: `defineSurface<FaxTables>()({ name, errors, settings, migrations, install })`.
 */
export function defineSurface<T extends Record<string, object>>() {
  return <S extends SettingsSection, V extends Omit<SurfaceVocabulary, 'settings'>, H>(
    surface: V & { readonly settings: S; install(platform: SurfacePlatform<S, T>): Promise<H> | H },
  ): V & { readonly settings: S } & Surface<H> => ({
    ...surface,
    install: (platform: Platform) =>
      surface.install({
        ...platform,
        config: platform.config.withSection(surface.settings),
        database: { ...platform.database, db: platform.database.db.withTables<T>() },
      }),
  });
}
