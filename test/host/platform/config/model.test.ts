import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { ConfigModel } from '../../../../host/platform/config/config-model.js';
import { settingsSection } from '../../../../host/platform/config/settings-section.js';
import { gatewayConfigModel } from '../../../support/gateway-config.js';

const model = gatewayConfigModel();
const keySchema = (key: string) => model.keySchema(key);

test('defaults follow the reference engine and the host', () => {
  const config = model.defaults();
  assert.is(config.FINAL_K, 10);
  assert.is(config.LANGGRAPH_FINAL_K, 20);
  assert.is(config.RRF_K_DIV, 60);
  assert.is(config.BM25_WEIGHT, 0.3);
  assert.is(config.VECTOR_WEIGHT, 0.7);
  assert.is(config.TOPK_SPARSE, 75);
  assert.is(config.TOPK_DENSE, 75);
  assert.is(config.CHUNK_SIZE, 1000);
  assert.is(config.CHUNK_OVERLAP, 200);
  assert.is(config.KEYWORDS_MAX_PER_REPO, 50);
  assert.is(config.KEYWORDS_MIN_FREQ, 3);
  assert.is(config.KEYWORDS_BOOST, 1);
  assert.is(config.KEYWORDS_REFRESH_HOURS, 24);
  assert.is(config.GEN_TEMPERATURE, 0);
  assert.is(config.GEN_MAX_TOKENS, 2048);
  assert.is(config.GEN_TIMEOUT, 60);
  assert.is(config.EMBEDDING_BATCH_SIZE, 64);
  assert.is(config.TRACE_RETENTION, 50);
  assert.is(config.EDITOR_PORT, 4440);
  assert.is(config.EDITOR_BIND, 'local');
  assert.is(config.EDITOR_ENABLED, true);
  assert.is(config.EDITOR_EMBED_ENABLED, true);
  assert.is(config.ENRICH_CODE_CHUNKS, false);
  assert.is(config.PORT, 8080);
  assert.is(config.HOST, '0.0.0.0');
  assert.is(config.DATA_DIR, './data');
  assert.is(config.PLUGINS_PATH, '');
  assert.is(config.SERVICE_CONFIG_PATH, undefined);
  assert.is(config.FAX_BACKEND, 'providera');
  assert.is(config.FAX_PAPER_SIZE, 'letter');
  assert.is(config.STORAGE_BACKEND, 'storage-local');
  assert.is(config.PLUGIN_DRAIN_TIMEOUT_MS, 30000);
  assert.is(config.CLEANUP_INTERVAL_MINUTES, 1440);
});

test('booleans accept true/false, 1/0 and yes/no in any case, and nothing else', () => {
  const flag = keySchema('EDITOR_ENABLED');
  for (const yes of ['true', 'TRUE', '1', 'yes', 'Yes', true, 1]) assert.is(flag.parse(yes), true, String(yes));
  for (const no of ['false', 'False', '0', 'no', 'NO', false, 0]) assert.is(flag.parse(no), false, String(no));
  for (const bad of ['maybe', 'on', '2', 2, 'truthy']) assert.not.ok(flag.safeParse(bad).success, String(bad));
});

test('numbers are coerced from strings and checked against their range', () => {
  assert.is(keySchema('FINAL_K').parse('15'), 15);
  assert.is(keySchema('BM25_WEIGHT').parse(' 0.25 '), 0.25);
  assert.not.ok(keySchema('FINAL_K').safeParse('abc').success);
  assert.not.ok(keySchema('FINAL_K').safeParse('1.5').success, 'integers only');
  assert.not.ok(keySchema('FINAL_K').safeParse(0).success, 'at least 1');
  assert.not.ok(keySchema('BM25_WEIGHT').safeParse('1.5').success, 'weights are 0..1');
  assert.not.ok(keySchema('EDITOR_PORT').safeParse(70000).success);
});

test('optional keys treat an empty string as unset; enums and names are checked', () => {
  assert.is(keySchema('OPENAI_API_KEY').parse(''), undefined);
  assert.is(keySchema('FAX_PAPER_SIZE').parse('A4'), 'a4');
  assert.not.ok(keySchema('FAX_PAPER_SIZE').safeParse('legal').success);
  assert.not.ok(keySchema('REPO').safeParse('../etc').success, 'REPO names a directory');
  assert.not.ok(keySchema('PUBLIC_API_URL').safeParse('not a url').success);
});

test('unknown keys are refused by the root model', () => {
  const result = model.schema.safeParse({ FINAL_KK: 3 });
  assert.not.ok(result.success);
});

test('a key declared by two sections is refused when the model is built, naming both owners', () => {
  const a = settingsSection('one', { SHARED_KEY: z.string().default('a') });
  const b = settingsSection('two', { SHARED_KEY: z.string().default('b') });
  assert.throws(() => new ConfigModel([a, b]), /SHARED_KEY of two is declared by one already/);
});

test('environment-only keys are the ones their sections mark, wherever they are declared', () => {
  assert.equal([...model.envOnlyKeys].sort(), ['ADMIN_SETTINGS_PERSIST_PATH', 'ALERT_ALLOW_HTTP_LOOPBACK', 'ALERT_WEBHOOK_CA_FILE', 'ALLOWED_HOSTS', 'AUDIT_LOG_FILE', 'DATA_DIR', 'DOCKER_HOST', 'MANIFESTS_DIR', 'MCP_OUTBOX_DIR', 'OUTBOUND_ALLOW_HOSTS', 'PLUGINS_PATH', 'PLUGIN_PACKAGE_CA_FILE', 'PLUGIN_PATHS_ALLOW', 'PLUGIN_TRUSTED_KEYS', 'REPOS', 'SECRETS_KEY', 'SECRETS_KEY_PREVIOUS', 'SELFHOSTED_CHECKPOINTS_DIR', 'SERVICE_CONFIG_PATH', 'WEB_DIST_DIR']);
});

test('the secret keys are every secret of the reference and the host, and nothing else', () => {
  const expected = [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GOOGLE_API_KEY',
    'COHERE_API_KEY',
    'VOYAGE_API_KEY',
    'LANGSMITH_API_KEY',
    'LANGCHAIN_API_KEY',
    'LANGTRACE_API_KEY',
    'OAUTH_TOKEN',
    'GRAFANA_API_KEY',
    'GRAFANA_AUTH_TOKEN',
    'MCP_API_KEY',
    'DATABASE_URL',
    'API_KEY',
    // the LLM gateway (embeddings, answers)
    'LLM_GATEWAY_API_KEY',
    // alert receivers
    'WEBHOOK_TARGETS',
    // signs the fax status events sent to a job's callback_url
    'WEBHOOK_SIGNING_SECRET',
    // seal the secrets stored in the database
    'SECRETS_KEY',
    'SECRETS_KEY_PREVIOUS',
    // inbound webhook credentials are the provider plugins' own settings, never the host's
  ];
  assert.equal([...model.secretKeys].sort(), expected.sort());
});

test('every key is documented with a type, a description and its owner', () => {
  for (const key of model.keys) {
    const doc = model.keyDoc(key);
    assert.ok(doc.description.length > 10, `${key} has a description`);
    assert.ok(doc.type.length > 0, `${key} has a type`);
    assert.is(doc.secret, model.secretKeys.has(key), `${key} secret flag`);
    assert.ok(['platform', 'fax', 'search', 'workbench', 'mcp'].includes(doc.owner), `${key} owner`);
  }
  assert.is(model.keyDoc('FINAL_K').type, 'integer (1..1000)');
  assert.is(model.keyDoc('FINAL_K').default, 10);
  assert.is(model.keyDoc('EDITOR_ENABLED').type, 'boolean');
  assert.is(model.keyDoc('FAX_PAPER_SIZE').type, 'one of: letter, a4');
  assert.is(model.keyDoc('OPENAI_API_KEY').optional, true);
  assert.is(model.keyDoc('OPENAI_API_KEY').default, undefined);
  assert.is(model.keyDoc('FAX_BACKEND').owner, 'fax');
  assert.is(model.keyDoc('PORT').owner, 'platform');
});

test.run();
