import { ALERT_SINK_CONTRACT_V1, ALERT_V1_FIELD_NAMES, ConfigError, EgressDeniedError, definePlugin, secretFields, type AlertDelivery, type AlertNotice, type AlertSinkProvider, type EgressHttpClient, type PluginDefinition } from '../sdk/index.js';
import { envMapFromManifest, settingsSchemaFromManifest, type Manifest } from '../manifest/index.js';
import { providesAt } from '../manifest/contract-serving.js';
import { asText, renderJson, renderTemplate, renderUrlText, type TemplateLookup } from './template/template-render.js';

// CR, LF, NUL and the other controls (tab aside) would split or end a header line.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

function own(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && Object.hasOwn(value, key) ? (value as Record<string, unknown>)[key] : undefined;
}

/**
 * What a placeholder of an `alert` block names: `alert` (the whole notice), `alert.<field>`,
 * `alert.context.<key>`, `alert.labels.<key>`, `settings.<field>`, `secrets.<field>`;
 * `names` maps the camelCase names of major 1 for a manifest declared `alert-sink@^1`.
 */
function alertLookup(notice: AlertNotice, settings: Readonly<Record<string, unknown>>, secrets: ReadonlySet<string>, names: Readonly<Record<string, string>>): TemplateLookup {
  return (expression) => {
    const [root, field, ...rest] = expression.split('.');
    if (root === 'settings' || root === 'secrets') return (root === 'secrets') === secrets.has(field!) ? own(settings, field!) : undefined;
    if (root !== 'alert') return undefined;
    if (field === undefined) return notice;
    const name = own(names, field);
    let current = own(notice, typeof name === 'string' ? name : field);
    for (const key of rest) current = own(current, key);
    return current;
  };
}

/** Options of the alert runtime the host sets from its environment. */
export interface AlertReceiverOptions {
  /** ALERT_ALLOW_HTTP_LOOPBACK (environment only): plain http to a loopback host, for a local development receiver. */
  allowHttpLoopback?: () => boolean;
}

/** True for a URL host that names the loopback interface in any spelling the URL parser leaves (127.0.0.0/8, ::1, localhost). */
function isLoopbackHost(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * The one rule for every alert receiver URL (alert-sink plugins, WEBHOOK_TARGETS instances): https only,
 * or http to a loopback host when ALERT_ALLOW_HTTP_LOOPBACK allows it. Undefined when the URL
 * passes, else why not (never quoting the URL: it authorises posting). The address rule
 * (no private or metadata address) is the outbound guard's, at delivery.
 */
export function alertReceiverUrlProblem(url: URL, allowHttpLoopback: boolean): string | undefined {
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return 'only https URLs are allowed';
  if (isLoopbackHost(url)) return allowHttpLoopback ? undefined : 'plain http is refused (set ALERT_ALLOW_HTTP_LOOPBACK=true in the environment for a local development receiver)';
  return 'plain http is refused';
}

/** One receiver of an `alert` block: its URL, headers and body filled in from a stored notice. */
interface AlertReceiver {
  /** The receiver masked after its host (the URL authorises posting). */
  readonly receiver: string;
  deliver(notice: AlertNotice, signal?: AbortSignal): Promise<AlertDelivery>;
}

/**
 * The delivery of the `alert` block: a POST rendered from the notice through an egress-checked
 * client, the notice's event_id as Idempotency-Key; 2xx delivered, 4xx (but 408 and 429) refused
 * for good, 408, 429, 5xx, no answer or a broken connection transient.
 */
function alertReceiver(manifest: Manifest, settings: Readonly<Record<string, unknown>>, http: EgressHttpClient, options: AlertReceiverOptions = {}): AlertReceiver {
  const { id, alert: block } = manifest;
  if (!block) throw new TypeError(`manifest ${id} has no "alert" block`);
  const secrets = new Set(secretFields(settingsSchemaFromManifest(manifest.settings)));
  const names = providesAt(manifest, 'alert-sink', ALERT_SINK_CONTRACT_V1) ? ALERT_V1_FIELD_NAMES : {};
  const probe: AlertNotice = { id: 'probe', event_id: 'probe', type: 'probe', category: 'probe', severity: 'info', status: 'firing', title: 'probe', labels: {}, starts_at: new Date(0).toISOString(), ends_at: null, sent_at: new Date(0).toISOString(), context: {} };
  let target: URL;
  try {
    target = new URL(renderUrlText(block.url, alertLookup(probe, settings, secrets, names), { whole: true }));
  } catch {
    throw new ConfigError(`${id}: the receiver URL is not set or not a URL; set the settings it names`);
  }
  const problem = alertReceiverUrlProblem(target, options.allowHttpLoopback?.() ?? false);
  if (problem) throw new ConfigError(`${id}: the receiver URL is refused: ${problem}`);
  return {
    receiver: `${target.protocol}//${target.host}/***`,
    async deliver(notice, signal) {
      const find = alertLookup(notice, settings, secrets, names);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      try {
        for (const [name, template] of Object.entries(block.headers ?? {})) {
          const value = renderTemplate(template, find, asText);
          if (CONTROL.test(value)) return { ok: false, permanent: true, detail: `header "${name}" holds a control character` };
          headers[name] = value;
        }
        headers['idempotency-key'] = notice.event_id;
        const res = await http.fetch(renderUrlText(block.url, find, { whole: true }), { method: 'POST', headers, body: renderJson(block.body, find), ...(signal ? { signal } : {}), maxRedirects: 0 });
        await res.body?.cancel().catch(() => {});
        if (res.ok) return { ok: true, status: res.status };
        const permanent = res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
        return { ok: false, permanent, status: res.status, detail: `receiver answered HTTP ${res.status}` };
      } catch (err) {
        // A refused host (manifest egress, or a private address) stays refused: no retry.
        if (err instanceof EgressDeniedError) return { ok: false, permanent: true, detail: err.message };
        return { ok: false, permanent: false, detail: failureOf(err) };
      }
    },
  };
}

function failureOf(err: unknown): string {
  const name = (err as Error)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return 'no answer in time';
  let current: unknown = err;
  for (let i = 0; i < 4 && current; i++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return `connection failed: ${code}`;
    current = (current as { cause?: unknown }).cause;
  }
  return `connection failed: ${(err as Error)?.message ?? String(err)}`;
}

/**
 * The runtime of the manifest `alert` block as an alert-sink plugin: one receiver, its settings,
 * its egress. It serves the current contract whatever major the manifest declares (the host's own runtime).
 */
export function createAlertSinkPlugin(manifest: Manifest, options: AlertReceiverOptions = {}): PluginDefinition {
  if (!manifest.alert) throw new TypeError(`manifest ${manifest.id} has no "alert" block`);
  return definePlugin({
    settings: settingsSchemaFromManifest(manifest.settings),
    env: envMapFromManifest(manifest.settings),
    start(ctx) {
      const receiver = alertReceiver(manifest, ctx.settings as Record<string, unknown>, ctx.http, options);
      const sink: AlertSinkProvider = { deliver: (notice, signal) => receiver.deliver(notice, signal) };
      return { providers: { 'alert-sink': sink }, health: () => ({ ok: true, info: { receiver: receiver.receiver } }) };
    },
  });
}
