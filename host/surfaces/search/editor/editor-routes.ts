import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import type { HttpApi } from '../../../platform/http/api.js';
import type { SearchConfig } from '../search-settings.js';
import { EditorKeys } from './editor-settings.js';

const EditorSettingsBody = z.object({
  port: z.number().int().describe('EDITOR_PORT'),
  enabled: z.boolean().describe('EDITOR_ENABLED'),
  embed_enabled: z.boolean().describe('EDITOR_EMBED_ENABLED'),
  bind: z.string().describe('EDITOR_BIND, e.g. "local" for loopback only'),
  image: z.string().describe('EDITOR_IMAGE, the container image of the editor'),
  source: z
    .enum(['registry', 'legacy', 'default'])
    .describe(
      '"registry" when any EDITOR_* key is set in the environment or the config file; "legacy" when none is and ' +
        'the legacy out/editor/settings.json supplied values; "default" otherwise.',
    ),
});

export type EditorSettings = z.infer<typeof EditorSettingsBody>;

const ADMIN = { scope: 'admin', administrative: true } as const;

/** GET /api/editor/settings: the embedded editor's settings (the spec's code-search and configuration service). */
export function registerEditorRoutes(api: HttpApi, deps: { config: SearchConfig; legacyEditorSettingsFile: string }): void {
  api.route(
    {
      method: 'get',
      path: '/api/editor/settings',
      summary: 'Editor settings',
      description:
        'The EDITOR_* keys of the registry when any of them is set (environment or config file); otherwise the ' +
        'legacy out/editor/settings.json when it holds any of these fields; otherwise the defaults.',
      tags: ['config', 'editor'],
      access: ADMIN,
      responses: { 200: { description: 'Editor settings', schema: EditorSettingsBody } },
    },
    () => resolveEditorSettings(deps.config, deps.legacyEditorSettingsFile),
  );
}

const EDITOR_KEYS = {
  port: 'EDITOR_PORT',
  enabled: 'EDITOR_ENABLED',
  embed_enabled: 'EDITOR_EMBED_ENABLED',
  bind: 'EDITOR_BIND',
  image: 'EDITOR_IMAGE',
} as const;

type EditorField = keyof typeof EDITOR_KEYS;
const EDITOR_FIELDS = Object.keys(EDITOR_KEYS) as EditorField[];

/**
 * All or nothing per source, so one response never mixes a registry port with a legacy
 * image: once any EDITOR_* key is configured, the legacy file is no longer read.
 */
export async function resolveEditorSettings(registry: SearchConfig, legacyFile: string): Promise<EditorSettings> {
  const { source } = registry.effective();
  const fromRegistry = EDITOR_FIELDS.some((field) => source[EDITOR_KEYS[field]] !== 'default');
  const settings = {
    port: registry.get('EDITOR_PORT'),
    enabled: registry.get('EDITOR_ENABLED'),
    embed_enabled: registry.get('EDITOR_EMBED_ENABLED'),
    bind: registry.get('EDITOR_BIND'),
    image: registry.get('EDITOR_IMAGE'),
  };
  if (fromRegistry) return { ...settings, source: 'registry' };

  const legacy = await readLegacyEditorSettings(legacyFile);
  if (!Object.keys(legacy).length) return { ...settings, source: 'default' };
  return { ...settings, ...legacy, source: 'legacy' };
}

// The legacy file's fields, each validated like its registry key; bad fields are left out.
async function readLegacyEditorSettings(file: string): Promise<Partial<Omit<EditorSettings, 'source'>>> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return {}; // missing or unreadable: there is no legacy file to fall back to
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const found: Record<string, unknown> = {};
  for (const field of EDITOR_FIELDS) {
    const raw = (value as Record<string, unknown>)[field];
    if (raw === undefined || raw === null) continue;
    const parsed = EditorKeys[EDITOR_KEYS[field]].safeParse(raw);
    if (parsed.success) found[field] = parsed.data;
  }
  return found as Partial<Omit<EditorSettings, 'source'>>;
}
