import { z } from 'zod';
import { secret, isSecretSchema } from '../sdk/settings.js';

// Values arrive as strings from the environment and as JSON values from the config file or
// the API; each field accepts both and stores the typed value.

function numberFromText(value: unknown): unknown {
  return typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value;
}

const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);

function booleanFromText(value: unknown): unknown {
  if (value === 1) return true;
  if (value === 0) return false;
  if (typeof value !== 'string') return value;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return value;
}

// An empty value of an optional key means "not set" (a cleared form field, `KEY=` in .env).
function emptyAsUnset(value: unknown): unknown {
  return value === '' || value === null ? undefined : value;
}

const integer = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(numberFromText, z.number().int().min(min).max(max));
const decimal = (min: number, max?: number) =>
  z.preprocess(numberFromText, max === undefined ? z.number().min(min) : z.number().min(min).max(max));
const flag = () => z.preprocess(booleanFromText, z.boolean());
const text = () => z.string().min(1);
const optionalText = () => z.preprocess(emptyAsUnset, z.string().min(1).optional());
const apiSecret = (what: string) => secret(optionalText().describe(what));
const pluginId = () => z.string().regex(/^[a-z0-9-]+$/, 'must be a plugin id ([a-z0-9-]+)');

/** The root model of the configuration registry: every key, its type, default and meaning. */
export const ConfigModel = z
  .object({
    // Host
    PORT: integer(0, 65535).default(8080).describe('TCP port the gateway listens on (0 picks a free port).'),
    HOST: text().default('0.0.0.0').describe('Address the gateway binds to.'),
    DATA_DIR: text().default('./data').describe('Directory for the SQLite database, artifacts and the default config files.'),
    PUBLIC_API_URL: z
      .preprocess(emptyAsUnset, z.url().optional())
      .describe('Public base URL of the gateway, used in links handed to outside callers (webhooks, PDF tokens).'),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('Minimum level of the structured JSON log.'),
    DATABASE_URL: secret(
      optionalText().describe('PostgreSQL URL (postgres://...) for shared state; unset uses the SQLite file under DATA_DIR. Secret: it may hold a password.'),
    ),
    STORAGE_BACKEND: pluginId().default('storage-local').describe('Plugin id of the storage provider for artifacts.'),
    ARTIFACT_TTL_DAYS: integer(0).default(0).describe('Days stored artifacts (PDF, TIFF) are kept; 0 turns expiry off.'),
    CLEANUP_INTERVAL_MINUTES: integer(1).default(1440).describe('Minutes between runs of the cleanup of expired artifacts and inbound faxes.'),
    MAX_FILE_SIZE_MB: integer(1).default(10).describe('Largest accepted upload, in megabytes.'),
    ADMIN_ALLOW_RESTART: flag().default(false).describe('Allow POST /admin/restart: the gateway answers 202, drains and exits with code 0 (a supervisor starts it again).'),
    ADMIN_SETTINGS_PERSIST_PATH: optionalText().describe('File POST /admin/settings/persist writes the effective settings to, as an env file (e.g. /faxdata/service.env); unset turns persist off (403).'),

    // Plugins
    MANIFESTS_DIR: optionalText().describe("Directory for dropped and registry-installed manifests; unset means the package's manifests/. The package's manifests/ (the built-ins) is always searched too."),
    PLUGINS_PATH: z.string().default('').describe('Extra directories searched for plugin manifests, separated by the path delimiter (":" on POSIX).'),
    SERVICE_CONFIG_PATH: optionalText().describe('Path of the plugin config store; unset means DATA_DIR/plugins.config.json.'),
    PLUGIN_START_TIMEOUT_MS: integer(1).default(10000).describe('Milliseconds a plugin start may take before it is treated as failed.'),
    PLUGIN_STOP_TIMEOUT_MS: integer(1).default(5000).describe('Milliseconds a plugin stop may take before it is forced.'),
    PLUGIN_DRAIN_TIMEOUT_MS: integer(1).default(30000).describe('Milliseconds an old plugin generation may keep serving leased requests after a reload.'),

    // Security
    API_KEY: secret(optionalText().describe('Bootstrap API key with every scope (header X-API-Key); setting it also makes every non-public route require a key.')),
    REQUIRE_API_KEY: flag().default(false).describe('Require an API key on every non-public route.'),
    API_KEY_CACHE_SECONDS: integer(1, 3600).default(5).describe('Seconds between reloads of the API-key cache from the database: the longest another instance keeps accepting a key revoked or rotated elsewhere.'),
    MAX_REQUESTS_PER_MINUTE: integer(1).default(60).describe('Requests per minute to the /fax endpoints allowed to one API key or client address (a key\'s rate_limit_rpm overrides it).'),
    AUDIT_LOG_ENABLED: flag().default(false).describe('Write an audit log of security-relevant actions.'),
    AUDIT_LOG_FILE: optionalText().describe('File the audit log is appended to; unset writes it to the main log.'),
    AUDIT_LOG_SYSLOG: flag().default(false).describe('Also send audit events to syslog (RFC 5424): the unix socket AUDIT_SYSLOG_SOCKET, or UDP to AUDIT_SYSLOG_HOST when that is set.'),
    AUDIT_SYSLOG_SOCKET: text().default('/dev/log').describe('Unix datagram socket of the local syslog daemon.'),
    AUDIT_SYSLOG_HOST: optionalText().describe('Send syslog over UDP to this loopback address instead of the unix socket (127.0.0.1 or ::1; other hosts are refused).'),
    AUDIT_SYSLOG_PORT: integer(1, 65535).default(514).describe('UDP port of AUDIT_SYSLOG_HOST.'),

    // Fax
    FAX_BACKEND: pluginId().default('providera').describe('Plugin id of the fax provider outbound faxes are sent with.'),
    FAX_DISABLED: flag().default(false).describe('Accept and store faxes without sending them: new jobs get status "disabled".'),
    FAX_DISPATCH_CONCURRENCY: integer(1, 256).default(4).describe('Fax jobs dispatched to the provider at the same time.'),
    FAX_PAPER_SIZE: z
      .preprocess((v) => (typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(['letter', 'a4']))
      .default('letter')
      .describe('Paper size documents are rendered to before sending.'),
    FAX_MAX_ATTEMPTS: integer(1, 100).default(5).describe('Send attempts per job while the provider certainly did not accept it (connection refused, 5xx, 429); then the job fails.'),
    FAX_RETRY_BASE_MS: integer(10).default(2000).describe('First retry delay after a refused send; doubles each attempt (a provider Retry-After wins).'),
    FAX_LEASE_MS: integer(500).default(60000).describe('Lease a dispatcher holds on a claimed job; renewed while it works, so a dead instance\'s jobs are taken over after it expires.'),
    FAX_DISPATCH_POLL_MS: integer(10).default(1000).describe('How often an idle dispatcher looks for due jobs (new jobs of this instance wake it at once).'),
    FAX_UNCERTAIN_RECHECK_MS: integer(10).default(15000).describe('Delay between provider lookups of a send whose outcome is unknown (timeout after sending).'),
    FAX_UNCERTAIN_GIVE_UP_MINUTES: integer(1).default(30).describe('Minutes after which a send the provider still has no record of is failed (never resent).'),
    FAX_STATUS_POLL_MS: integer(100).default(120000).describe('An accepted job not heard of for this long is polled at its provider (a lost callback cannot leave it waiting).'),
    FAX_RECONCILE_INTERVAL_MS: integer(50).default(30000).describe('How often the reconciler looks for jobs to poll.'),
    FAX_RESULT_TIMEOUT_MINUTES: integer(1).default(240).describe('An accepted job with no final result after this many minutes is failed.'),
    GS_TIMEOUT_SECONDS: integer(1).default(120).describe('Seconds ghostscript may take to render a fax TIFF.'),
    PDF_TOKEN_TTL_MINUTES: integer(1).default(60).describe('Minutes a tokenized PDF link for a provider stays valid.'),
    INBOUND_ENABLED: flag().default(false).describe('Accept and store inbound faxes.'),
    INBOUND_LIST_RPM: integer(1).default(30).describe('Requests per minute allowed on the inbound fax listing.'),
    INBOUND_GET_RPM: integer(1).default(60).describe('Requests per minute allowed on inbound fax downloads.'),
    INBOUND_RETENTION_DAYS: integer(0).default(30).describe('Days inbound faxes are kept; 0 keeps them forever.'),
    INBOUND_TOKEN_TTL_MINUTES: integer(1).default(60).describe('Minutes a download token of an inbound fax stays valid.'),
    INBOUND_MEDIA_TIMEOUT_SECONDS: integer(1, 600).default(30).describe('Seconds a download of an inbound fax document from the provider may take.'),
    PROVIDERA_INBOUND_VERIFY_SIGNATURE: flag().default(true).describe('Check X-ProviderA-Signature (HMAC-SHA256 with the provider A API secret) on POST /providera-inbound.'),
    PROVIDERA_MEDIA_HOSTS: optionalText().describe('Comma-separated hosts (host or host:port) provider A inbound documents may be fetched from; unset means the host of the providera baseUrl setting.'),
    PROVIDERB_MEDIA_HOSTS: optionalText().describe('Comma-separated hosts (host or host:port) provider B inbound documents may be fetched from; unset means the host of the providerb baseUrl setting.'),
    PROVIDERB_INBOUND_BASIC_USER: optionalText().describe('User name provider B must send with HTTP Basic auth on POST /providerb-inbound (with PROVIDERB_INBOUND_BASIC_PASS).'),
    PROVIDERB_INBOUND_BASIC_PASS: apiSecret('Password of PROVIDERB_INBOUND_BASIC_USER.'),
    PROVIDERB_INBOUND_HMAC_SECRET: apiSecret('Secret of the X-ProviderB-Signature HMAC on POST /providerb-inbound; unset skips the check.'),
    PBX_INBOUND_SECRET: apiSecret('Shared secret the PBX sends as X-Internal-Secret to POST /_internal/pbx/inbound; unset refuses the hook.'),
    PBX_SPOOL_DIR: optionalText().describe('Directory the PBX writes received fax TIFFs to; tiff_path must resolve inside it.'),

    // Code search: retrieval
    REPO: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'must be a repository name (letters, digits, ".", "_", "-")')
      .default('switchboard')
      .describe('Repository searched and indexed when a request names none; also names out/<REPO>/.'),
    RETRIEVAL_BACKEND: z
      .preprocess(emptyAsUnset, pluginId().optional())
      .describe('Plugin id of the retrieval provider used by search and answers; unset means none is configured.'),
    FINAL_K: integer(1, 1000).default(10).describe('Results returned by search when top_k is not given.'),
    LANGGRAPH_FINAL_K: integer(1, 1000).default(20).describe('Chunks the answer graph retrieves for a RAG answer.'),
    RRF_K_DIV: integer(1).default(60).describe('k of reciprocal rank fusion: score = weight / (k + rank).'),
    BM25_WEIGHT: decimal(0, 1).default(0.3).describe('Weight of the sparse (BM25) ranking in hybrid fusion.'),
    VECTOR_WEIGHT: decimal(0, 1).default(0.7).describe('Weight of the dense (vector) ranking in hybrid fusion.'),
    TOPK_SPARSE: integer(1).default(75).describe('Candidates taken from the sparse index before fusion.'),
    TOPK_DENSE: integer(1).default(75).describe('Candidates taken from the dense index before fusion.'),
    CHUNK_SIZE: integer(1).default(1000).describe('Characters per indexed chunk.'),
    CHUNK_OVERLAP: integer(0).default(200).describe('Characters shared by consecutive chunks.'),
    ENRICH_CODE_CHUNKS: flag().default(false).describe('Enrich chunks with summaries and keywords while indexing.'),

    // Code search: keywords
    KEYWORDS_MAX_PER_REPO: integer(0).default(50).describe('Discriminative keywords kept per repository.'),
    KEYWORDS_MIN_FREQ: integer(1).default(3).describe('Files a term must appear in to become a keyword.'),
    KEYWORDS_BOOST: decimal(0).default(1.3).describe('Score multiplier of a result that matches a keyword.'),
    KEYWORDS_REFRESH_HOURS: decimal(0).default(24).describe('Hours before cached keywords are regenerated.'),

    // Code search: models
    GEN_MODEL: text().default('gpt-4o-mini').describe('Model that writes RAG answers.'),
    GEN_TEMPERATURE: decimal(0, 2).default(0).describe('Sampling temperature of the answer model.'),
    GEN_MAX_TOKENS: integer(1).default(2048).describe('Most tokens an answer may use.'),
    GEN_TIMEOUT: integer(1).default(60).describe('Seconds to wait for the answer model.'),
    EMBEDDING_MODEL: text().default('text-embedding-3-small').describe('Model that embeds chunks and queries.'),
    EMBEDDING_DIM: integer(1).default(1536).describe('Dimensions of the embedding vectors (must match the model).'),
    EMBEDDING_BATCH_SIZE: integer(1).default(64).describe('Chunks embedded per request while indexing.'),
    TRACE_RETENTION: integer(0).default(50).describe('Trace files kept per repository under out/<repo>/traces (newest first).'),

    // Code search: editor
    EDITOR_ENABLED: flag().default(true).describe('Offer the embedded code editor.'),
    EDITOR_PORT: integer(1, 65535).default(4440).describe('Port the editor container listens on.'),
    EDITOR_BIND: text().default('local').describe('Where the editor listens: "local" for loopback only, otherwise an address to bind.'),
    EDITOR_EMBED_ENABLED: flag().default(true).describe('Show the editor embedded in the UI (otherwise only as a link).'),
    EDITOR_IMAGE: text().default('codercom/code-server:latest').describe('Container image of the editor.'),

    // Secrets of model vendors and integrations
    OPENAI_API_KEY: apiSecret('API key of OpenAI.'),
    ANTHROPIC_API_KEY: apiSecret('API key of Anthropic.'),
    GOOGLE_API_KEY: apiSecret('API key of Google (Gemini).'),
    COHERE_API_KEY: apiSecret('API key of Cohere (reranking).'),
    VOYAGE_API_KEY: apiSecret('API key of Voyage AI (embeddings).'),
    LANGSMITH_API_KEY: apiSecret('API key of LangSmith tracing.'),
    LANGCHAIN_API_KEY: apiSecret('API key of LangChain tracing (older name of the LangSmith key).'),
    LANGTRACE_API_KEY: apiSecret('API key of Langtrace.'),
    OAUTH_TOKEN: apiSecret('OAuth token used by integrations that need one.'),
    GRAFANA_API_KEY: apiSecret('API key of Grafana.'),
    GRAFANA_AUTH_TOKEN: apiSecret('Auth token of Grafana (service account).'),
    MCP_API_KEY: apiSecret('API key MCP clients present to the code-search tools.'),
  })
  .strict();

export type Config = z.infer<typeof ConfigModel>;
export type ConfigKey = keyof Config;

export const CONFIG_KEYS = Object.keys(ConfigModel.shape) as ConfigKey[];

/** Keys whose values never leave the process in clear: masked in responses and logs. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(
  CONFIG_KEYS.filter((key) => isSecretSchema(ConfigModel.shape[key] as z.ZodType)),
);

/**
 * Keys that name files or directories on the server. They are read from the environment (or the
 * env file) only, never written through the API, so no request can point a write or a read at
 * a path of its choosing.
 */
export const ENV_ONLY_KEYS: ReadonlySet<string> = new Set(['DATA_DIR', 'ADMIN_SETTINGS_PERSIST_PATH', 'AUDIT_LOG_FILE', 'PBX_SPOOL_DIR', 'SERVICE_CONFIG_PATH', 'MANIFESTS_DIR', 'PLUGINS_PATH']);

export function isConfigKey(key: string): key is ConfigKey {
  return Object.hasOwn(ConfigModel.shape, key);
}

/** The schema of one key, for validating a value from a single source. */
export function keySchema(key: ConfigKey): z.ZodType {
  return ConfigModel.shape[key] as z.ZodType;
}

export interface KeyDoc {
  /** Human-readable type: `integer (1..65535)`, `boolean`, `one of: letter, a4`. */
  type: string;
  /** The built-in default; undefined when the key is optional and unset by default. */
  default: unknown;
  optional: boolean;
  secret: boolean;
  description: string;
}

/** The documentation of every key, read from the model (so docs cannot drift from it). */
export const KEY_DOCS: Readonly<Record<ConfigKey, KeyDoc>> = Object.fromEntries(
  CONFIG_KEYS.map((key) => [key, describeKey(keySchema(key))]),
) as Record<ConfigKey, KeyDoc>;

type Def = { type: string; innerType?: z.ZodType; out?: z.ZodType; defaultValue?: unknown };
function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function describeKey(schema: z.ZodType): KeyDoc {
  let current = schema;
  let fallback: unknown = undefined;
  let optional = false;
  // Unwrap default/optional/preprocess down to the type the value is stored as.
  for (let depth = 0; depth < 8; depth++) {
    const def = defOf(current);
    if (def.type === 'default') fallback = def.defaultValue;
    if (def.type === 'optional') optional = true;
    const next = def.type === 'pipe' ? def.out : def.innerType;
    if (!next) break;
    current = next;
  }
  return {
    type: typeName(current),
    default: fallback,
    optional,
    secret: isSecretSchema(schema),
    description: schema.description ?? '',
  };
}

function typeName(schema: z.ZodType): string {
  const json = z.toJSONSchema(schema, { unrepresentable: 'any' }) as {
    type?: string;
    enum?: unknown[];
    format?: string;
    minimum?: number;
    maximum?: number;
    pattern?: string;
  };
  if (json.enum) return `one of: ${json.enum.join(', ')}`;
  if (json.type === 'string') return json.format === 'uri' ? 'URL' : 'string';
  if (json.type === 'integer' || json.type === 'number') {
    const max = json.maximum !== undefined && json.maximum < Number.MAX_SAFE_INTEGER ? json.maximum : undefined;
    const range =
      json.minimum !== undefined && max !== undefined
        ? ` (${json.minimum}..${max})`
        : json.minimum !== undefined
          ? ` (>= ${json.minimum})`
          : '';
    return `${json.type}${range}`;
  }
  return json.type ?? 'value';
}
