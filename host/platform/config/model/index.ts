import { settingsSection, type SectionValues } from '../settings-section.js';
import { HostKeys } from './host.js';
import { LlmKeys } from './llm.js';
import { PluginsKeys } from './plugins.js';
import { SecurityKeys } from './security.js';
import { SystemOneKeys } from './system-one.js';
import { VendorSecretsKeys } from './vendor-secrets.js';

/**
 * The platform's configuration keys, by feature: the gateway process, plugins, security and
 * audit, vendor credentials, the LLM gateway, the judgment backend (`system_one.*`). Each surface declares its own section beside its
 * code; the gateway merges them all into one model (config-model.ts).
 */
export const PLATFORM_SETTINGS = settingsSection('platform', {
  ...HostKeys,
  ...PluginsKeys,
  ...SecurityKeys,
  ...VendorSecretsKeys,
  ...LlmKeys,
  ...SystemOneKeys,
});

export type PlatformConfig = SectionValues<typeof PLATFORM_SETTINGS>;
