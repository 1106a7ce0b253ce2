import { z } from 'zod';
import { envOnly } from '../../core/sdk/settings.js';
import { flag, integer, optionalText } from '../platform/config/model/field-kinds.js';
import { settingsSection } from '../platform/config/settings-section.js';

/**
 * Configuration keys of the MCP adapter (MCP_API_KEY is the platform's: it is a key the access
 * guard knows). `switchboard mcp` reads the same keys from its own environment.
 */
export const MCP_SETTINGS = settingsSection('mcp', {
  MCP_REQUIRE_APPROVAL: flag().default(true).describe('MCP send_fax sends only a document prepared by prepare_fax, by its approval id; off, a key with fax:send may send a document and number in one send_fax call.'),
  MCP_REQUESTS_PER_MINUTE: integer(1).default(120).describe('Requests per minute to POST /mcp allowed to one API key (or client address without one); past it 429 `rate_limited` with Retry-After. A key\'s rate_limit_rpm overrides it. Each tool call also counts against its route\'s own budget.'),
  MCP_OUTBOX_DIR: envOnly(optionalText().describe('Environment only. The directory MCP prepare_fax and send_fax may read a document from by file path (nothing outside it); unset, documents come as base64 only.')),
});

/** What the tools read of the settings, on either transport. */
export interface McpSettings {
  requireApproval(): boolean;
  outboxDir(): string | undefined;
}

/** The settings of `switchboard mcp`, read from its own environment by the keys' schemas; a message when a value is invalid. */
export function mcpSettingsOf(env: NodeJS.ProcessEnv): McpSettings | string {
  const parsed = z.object(MCP_SETTINGS.keys).safeParse({ MCP_REQUIRE_APPROVAL: env.MCP_REQUIRE_APPROVAL, MCP_OUTBOX_DIR: env.MCP_OUTBOX_DIR });
  if (!parsed.success) return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
  const { MCP_REQUIRE_APPROVAL, MCP_OUTBOX_DIR } = parsed.data;
  return { requireApproval: () => MCP_REQUIRE_APPROVAL, outboxDir: () => MCP_OUTBOX_DIR };
}
