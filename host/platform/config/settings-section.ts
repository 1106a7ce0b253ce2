import type { z } from 'zod';

/**
 * The configuration keys one owner declares (the platform, a surface): their schemas, defaults
 * and descriptions, marked `secret` or `envOnly` where they are. The gateway merges the sections
 * into one model (config-model.ts); docs/platform/configuration.md lists them all.
 */
export interface SettingsSection<S extends z.ZodRawShape = z.ZodRawShape> {
  /** Who declares these keys (`platform`, `fax`, ...). */
  readonly owner: string;
  readonly keys: S;
  /** A rule across keys, checked on the whole configuration (a switch another key needs). */
  readonly refine?: (values: Record<string, unknown>, ctx: z.RefinementCtx) => void;
}

export function settingsSection<S extends z.ZodRawShape>(owner: string, keys: S, refine?: SettingsSection<S>['refine']): SettingsSection<S> {
  return { owner, keys, ...(refine ? { refine } : {}) };
}

/** The typed values of a section's keys. */
export type SectionValues<T> = T extends SettingsSection<infer S> ? z.infer<z.ZodObject<S>> : never;
