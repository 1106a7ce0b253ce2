import { envOnly, secret } from '../../../../core/sdk/settings.js';
import { z } from 'zod';
import { integer, flag, text, optionalText, emptyAsUnset } from './field-kinds.js';

/** Configuration keys of API keys, rate limits and the audit log. */
export const SecurityKeys = {
  API_KEY: secret(optionalText().describe('Bootstrap API key with every scope (header X-API-Key); setting it (like minting any key) makes every non-public route require a key, from loopback too.')),
  REQUIRE_API_KEY: flag().default(false).describe('Require an API key on every non-public route even before any key exists (without it, a gateway with no key answers loopback callers only, and any API_KEY or minted key makes keys required).'),
  ALLOWED_HOSTS: envOnly(optionalText().describe('Environment only. Comma-separated Host header values the gateway answers on non-public routes besides localhost, loopback addresses and the host of PUBLIC_API_URL (`fax.example.com`, `10.0.0.5:8080`; an entry without a port matches any port). Anything else answers 421 `host_not_allowed` (DNS rebinding).')),
  API_KEY_CACHE_SECONDS: integer(1, 3600).default(5).describe('Seconds between reloads of the API-key cache from the database. With PostgreSQL each request reads its own key\'s row (a key revoked or rotated on one instance is refused by all at once) and the cache only tells whether any key exists yet; with SQLite there is one process and every change reloads it.'),
  MAX_REQUESTS_PER_MINUTE: integer(1).default(60).describe('Requests per minute to the /fax endpoints allowed to one API key or client address (a key\'s rate_limit_rpm overrides it).'),
  OUTBOUND_ALLOW_HOSTS: envOnly(z
    .string()
    .default('')
    .describe(
      'Environment only: comma-separated hosts (as URLs spell them: 127.0.0.1, localhost, ::1, judge.internal) that URLs set at run time may reach although they are, or resolve to, loopback, private, link-local, CGNAT, unique-local or metadata addresses. Lifts only that rule: a plugin still reaches only the hosts its manifest egress declares. URLs given in the environment and literal manifest egress hosts never need it.',
    )),
  SECRETS_KEY: envOnly(secret(z.preprocess(emptyAsUnset, z.string().min(32, 'at least 32 characters (say `openssl rand -base64 32`)').optional()).describe(
    'Environment only: seals the secrets the gateway stores in its database (git repository credentials, status webhook signing secrets, the shared settings of a PostgreSQL cluster) with AES-256-GCM, so a copy of the database alone does not give them away. At least 32 characters; every instance of a cluster needs the same. Set on a gateway that has stored secrets, it seals them at start. A sealed value the gateway cannot open stops the start with a message naming the key it needs.',
  ))),
  SECRETS_KEY_PREVIOUS: envOnly(secret(optionalText().describe(
    'Environment only: the key stored secrets were sealed with before SECRETS_KEY changed. At start they are opened with it and sealed again under SECRETS_KEY (with SECRETS_KEY unset, stored as they are, unsealed); remove it after one start.',
  ))),
  AUDIT_LOG_ENABLED: flag().default(true).describe('Record an audit log of security-relevant actions (admin writes, keys, MCP calls, fax lifecycle) in the database, read by GET /admin/logs; false records none. The copy to AUDIT_LOG_FILE (or the main log) and to syslog follows it.'),
  AUDIT_LOG_FILE: envOnly(optionalText().describe('File the audit log is appended to; unset writes it to the main log.')),
  AUDIT_LOG_SYSLOG: flag().default(false).describe('Also send audit events to syslog (RFC 5424): the unix socket AUDIT_SYSLOG_SOCKET, or UDP to AUDIT_SYSLOG_HOST when that is set.'),
  AUDIT_SYSLOG_SOCKET: text().default('/dev/log').describe('Unix datagram socket of the local syslog daemon.'),
  AUDIT_SYSLOG_HOST: optionalText().describe('Send syslog over UDP to this loopback address instead of the unix socket (127.0.0.1 or ::1; other hosts are refused).'),
  AUDIT_SYSLOG_PORT: integer(1, 65535).default(514).describe('UDP port of AUDIT_SYSLOG_HOST.'),
};
