import type { PlatformConfig } from '../../platform/config/model/index.js';
import type { ConfigRegistry } from '../../platform/config/registry.js';
import { settingsSection, type SectionValues } from '../../platform/config/settings-section.js';
import { AccountingKeys } from './accounting/accounting-settings.js';
import { AlertKeys } from './alerts/alert-settings.js';
import { checkWebhookLoopback } from './alerts/webhook-targets.js';
import { DockerKeys } from './containers/container-settings.js';
import { JudgeKeys } from './judges/judge-settings.js';

/** Every configuration key of the workbench: judges and the lab, containers, run accounting, alerts. */
export const WORKBENCH_SETTINGS = settingsSection('workbench', { ...JudgeKeys, ...DockerKeys, ...AccountingKeys, ...AlertKeys }, checkWebhookLoopback);

/** The configuration as the workbench reads it: the platform's keys and its own. */
export type WorkbenchConfig = ConfigRegistry<PlatformConfig & SectionValues<typeof WORKBENCH_SETTINGS>>;
