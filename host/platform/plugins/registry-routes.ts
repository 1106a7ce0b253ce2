import { existsSync, readFileSync } from 'node:fs';
import { unlink } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Kernel } from '../../../core/kernel/kernel.js';
import { parseManifestText, validateManifest, isPluginId, PLUGIN_ID_PATTERN, PLUGIN_ID_RULE, type ManifestValidation } from '../../../core/manifest/index.js';
import { writeFileAtomic } from '../../../core/config/atomic-file.js';
import { CONTRACT_VERSIONS } from '../../../core/sdk/index.js';
import type { HttpApi } from '../http/api.js';
import { httpRuntimeDiagnostics, publicUrlWarnings, renderDryRun } from '../../../core/declarative/http-fax/index.js';
import { egressAllows, resolveEgress } from '../../../core/kernel/egress.js';
import { catalogueVersion, hostInRange, type CatalogueEntry, type RegistryCatalogue } from './registry-catalogue.js';
import { PluginEntry } from './plugin-routes.js';
import type { AuditLog } from '../audit/audit-log.js';
import { actorOf } from '../auth/access-guard.js';
import type { Response } from 'express';
import { httpError, invalid } from '../http/error-catalogue.js';
import { ErrorBody } from '../http/errors.js';

export interface RegistryRouteDeps {
  kernel: Kernel;
  catalogue: RegistryCatalogue;
  /** Where installed manifests are written: the first directory of the kernel's search path. */
  manifestsDir: string;
  hostVersion: string;
  audit?: AuditLog;
  /** PUBLIC_API_URL (no trailing slash), for the sample document URL of dry runs. */
  publicBaseUrl: () => string;
}

const LOAD_WAIT_MS = 5_000;
const SAMPLE_JOB_ID = 'job-sample-0001';
const SAMPLE_PROVIDER_SID = 'provider-sid-sample-0001';

const Diagnostic = z.object({ severity: z.enum(['error', 'warning']), code: z.string(), path: z.string(), message: z.string() });
const IdParams = z.object({ id: z.string().regex(PLUGIN_ID_PATTERN, PLUGIN_ID_RULE) });

// Faxbot's SDKs install with POST /plugins/install and this body.
const FaxbotInstallBody = z.object({ plugin_id: z.string().regex(PLUGIN_ID_PATTERN, PLUGIN_ID_RULE).describe('Registry id of the plugin') }).strict();

const ValidateBody = z
  .object({
    manifest: z.union([z.string(), z.record(z.string(), z.unknown())]).describe('The manifest, as a JSON object or as its text'),
    dry_run: z.boolean().optional().describe('Also render the requests an http manifest would send for a sample fax (nothing is sent)'),
    sample: z
      .object({
        to: z.string().max(64).optional().describe('Destination of the sample fax (default +15551234567)'),
        settings: z.record(z.string(), z.unknown()).optional().describe('Settings for the sample; secret fields are always shown as "***"'),
      })
      .strict()
      .optional(),
  })
  .strict();

const RenderedRequest = z.union([
  z.object({
    action: z.string(),
    method: z.string(),
    url: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().nullable(),
    egress_allowed: z.boolean().describe("Whether the URL's host is in the manifest's egress list"),
  }),
  z.object({ action: z.string(), error: z.string().describe('Why the request could not be rendered') }),
]);

/** What an install answers besides the plugin; a refused catalogue manifest (422) names its diagnostics. */
const INSTALL_ERRORS = ['registry_entry_not_found', 'registry_entry_invalid', 'package_incompatible_host', 'plugin_builtin', 'plugin_already_installed', 'registry_busy', 'manifest_invalid', 'plugin_load_timeout'];
const ManifestRefused = { 422: { schema: z.intersection(ErrorBody, z.object({ diagnostics: z.array(Diagnostic) })) } };

const ValidateResult = z.object({
  valid: z.boolean(),
  diagnostics: z.array(Diagnostic),
  requests: z.array(RenderedRequest).optional().describe('With dry_run and a valid http manifest: send, status and cancel as they would go out, secrets masked'),
  warnings: z.array(z.string()).optional().describe('With dry_run: requests that carry a URL of this gateway a provider cannot reach (PUBLIC_API_URL unset or loopback)'),
});

/**
 * Manifest validation with a dry run, and installing or removing catalogue entries: a copy of
 * the entry's manifest in manifests/, picked up by the kernel like any dropped manifest.
 */
export function registerRegistryRoutes(api: HttpApi, deps: RegistryRouteDeps): void {
  const { kernel, catalogue } = deps;
  const manage = { scope: 'plugins:manage', administrative: true } as const;
  // A validated or installed manifest lands in a manifests folder: its entry may not climb out of it (the loader's rule).
  const droppedFacts = { hostVersion: deps.hostVersion, contracts: CONTRACT_VERSIONS, declarativeBlocks: deps.kernel.declarative.blocks(), location: {} };
  // One install or removal per id at a time; the file system is the state, this only orders it.
  const busy = new Set<string>();

  /** Copies a catalogue entry's manifest into manifestsDir and waits for the kernel to load it. */
  async function install(id: string, res: Response) {
    const entry = catalogueEntry(catalogue, id);
    if (entry.builtin) throw httpError('plugin_builtin', { id: entry.id, action: 'install' });
    const target = targetFile(deps.manifestsDir, entry.id);
    return exclusive(busy, entry.id, async () => {
      if (kernel.get(entry.id) || existsSync(target)) throw httpError('plugin_already_installed', { id: entry.id });
      const text = readCatalogueManifest(catalogue, entry);
      const version = catalogueVersion(text);
      const listed = entry.versions.find((v) => v.version === version.version);
      if (entry.versions.length && listed?.integrity !== version.integrity) {
        throw httpError('registry_entry_invalid', { reason: `the manifest of "${entry.id}" does not match the integrity the catalogue lists for ${version.version}` });
      }
      if (!hostInRange(version.host, deps.hostVersion)) throw httpError('package_incompatible_host', { id: entry.id, range: version.host!, host: deps.hostVersion });
      const checked = parseManifestText(text, droppedFacts);
      const diagnostics = [...checked.diagnostics, ...(checked.manifest ? httpRuntimeDiagnostics(checked.manifest) : [])];
      if (!checked.manifest || diagnostics.some((d) => d.severity === 'error')) {
        throw httpError('manifest_invalid', { id: entry.id }).withBody({ diagnostics });
      }
      if (checked.manifest.id !== entry.id) {
        throw invalid('manifest.id', `the catalogue manifest declares id "${checked.manifest.id}", not "${entry.id}"`);
      }
      await writeFileAtomic(target, text, { private: true });
      deps.audit?.record('plugin_installed', { plugin: entry.id, version: entry.version, by: actorOf(res) });
      await kernel.rescan();
      const view = await waitFor(() => kernel.get(entry.id));
      if (!view) throw httpError('plugin_load_timeout', { id: entry.id, file: path.basename(target), seconds: LOAD_WAIT_MS / 1000 });
      res.status(201);
      return view;
    });
  }

  const routes = api.group({ tags: ['plugins'], access: manage });

  routes.route(
    {
      method: 'post',
      path: '/plugins/validate',
      summary: 'Validate a manifest; optionally dry-run the requests of an http manifest',
      description:
        'Runs the validator of `switchboard plugins lint` against this host, plus the checks of the http runtime. ' +
        'With `dry_run`, renders the send request for a sample fax (and status/cancel for a sample provider id) exactly as the runtime would, ' +
        'every secret setting shown as "***". Nothing is sent and nothing is stored.',
      body: ValidateBody,
      bodyErrorStatus: 400,
      responses: { 200: { description: 'Validation result', schema: ValidateResult } },
    },
    async ({ body }) => {
      const result: ManifestValidation =
        typeof body.manifest === 'string' ? parseManifestText(body.manifest, droppedFacts) : validateManifest(body.manifest, droppedFacts);
      const diagnostics = [...result.diagnostics, ...(result.manifest ? httpRuntimeDiagnostics(result.manifest) : [])];
      const valid = !!result.manifest && !diagnostics.some((d) => d.severity === 'error');
      const out: z.infer<typeof ValidateResult> = { valid, diagnostics };
      if (body.dry_run && valid && result.manifest?.http) {
        const manifest = result.manifest;
        out.requests = await renderDryRun(result.manifest, {
          ...(body.sample?.to !== undefined ? { to: body.sample.to } : {}),
          ...(body.sample?.settings ? { settings: body.sample.settings } : {}),
          jobId: SAMPLE_JOB_ID,
          documentUrl: `${deps.publicBaseUrl().replace(/\/+$/, '')}/fax/${SAMPLE_JOB_ID}/pdf?token=sample-token`,
          providerSid: SAMPLE_PROVIDER_SID,
          publicBaseUrl: deps.publicBaseUrl(),
        }, (url, settings) => egressAllows(resolveEgress(manifest.egress ?? [], settings), url));
        const warnings = publicUrlWarnings(out.requests, deps.publicBaseUrl());
        if (warnings.length) out.warnings = warnings;
      }
      return out;
    },
  );

  routes.route(
    {
      method: 'post',
      path: '/plugin-registry/:id/install',
      summary: "Install a catalogue entry: copy its manifest into manifests/ and wait until it is loaded",
      description: 'The manifest is validated first; the kernel then loads it like any dropped manifest (settings through PUT /plugins/{id}/config).',
      params: IdParams,
      errors: INSTALL_ERRORS,
      responses: { 201: { description: 'Installed; the plugin as /plugins shows it', schema: PluginEntry }, ...ManifestRefused },
    },
    ({ params, res }) => install(params.id, res),
  );

  routes.route(
    {
      method: 'post',
      path: '/plugins/install',
      summary: 'Install a catalogue entry (Faxbot SDK form of POST /plugin-registry/{id}/install)',
      description: 'Body `{"plugin_id": "<registry id>"}` as Faxbot\'s Node and Python SDKs send it; the same install, answers and audit as POST /plugin-registry/{id}/install, with `ok: true` beside the plugin.',
      body: FaxbotInstallBody,
      bodyErrorStatus: 400,
      errors: INSTALL_ERRORS,
      responses: { 201: { description: 'Installed; the plugin as /plugins shows it, with ok: true', schema: PluginEntry.extend({ ok: z.literal(true) }) }, ...ManifestRefused },
    },
    async ({ body, res }) => {
      const view = await install(body.plugin_id, res);
      return view && { ok: true as const, ...view };
    },
  );

  routes.route(
    {
      method: 'delete',
      path: '/plugin-registry/:id',
      summary: 'Remove a plugin installed from the catalogue and wait until the kernel drops it',
      params: IdParams,
      errors: ['registry_entry_not_found', 'plugin_not_installed', 'registry_entry_invalid', 'plugin_builtin', 'plugin_not_from_registry', 'registry_busy', 'plugin_unload_timeout'],
      responses: { 200: { description: 'Removed', schema: z.object({ id: z.string(), removed: z.literal(true) }) } },
    },
    async ({ params, res }) => {
      const entry = catalogueEntry(catalogue, params.id);
      if (entry.builtin) throw httpError('plugin_builtin', { id: entry.id, action: 'remove' });
      const target = targetFile(deps.manifestsDir, entry.id);
      return exclusive(busy, entry.id, async () => {
        if (!existsSync(target)) {
          const elsewhere = kernel.get(entry.id)?.manifest_path;
          if (elsewhere) throw httpError('plugin_not_from_registry', { id: entry.id, manifest: elsewhere });
          throw httpError('plugin_not_installed', { id: entry.id });
        }
        await unlink(target);
        deps.audit?.record('plugin_uninstalled', { plugin: entry.id, by: actorOf(res) });
        await kernel.rescan();
        const gone = await waitFor(() => (kernel.get(entry.id) ? undefined : true));
        if (!gone) throw httpError('plugin_unload_timeout', { id: entry.id, seconds: LOAD_WAIT_MS / 1000 });
        return { id: entry.id, removed: true as const };
      });
    },
  );
}

function catalogueEntry(catalogue: RegistryCatalogue, id: string): CatalogueEntry {
  const entry = catalogue.find(id);
  if (!entry) throw httpError('registry_entry_not_found', { id });
  // The catalogue schema checks ids too; a hand-edited index must not name files with them.
  if (!isPluginId(entry.id)) throw httpError('registry_entry_invalid', { reason: `registry entry "${id}" has an invalid id` });
  return entry;
}

/** `<manifestsDir>/<id>.json`, refused unless it resolves inside manifestsDir. */
function targetFile(manifestsDir: string, id: string): string {
  const root = path.resolve(manifestsDir);
  const target = path.resolve(root, `${id}.json`);
  if (path.dirname(target) !== root) throw invalid('id', `plugin id "${id}" does not name a file inside the manifests directory`, 400);
  return target;
}

function readCatalogueManifest(catalogue: RegistryCatalogue, entry: CatalogueEntry): string {
  let file: string;
  try {
    file = catalogue.manifestPath(entry);
  } catch (err) {
    throw httpError('registry_entry_invalid', { reason: (err as Error).message });
  }
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw httpError('registry_entry_invalid', { reason: `the manifest of registry entry "${entry.id}" cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}` });
  }
}

async function exclusive<T>(busy: Set<string>, id: string, fn: () => Promise<T>): Promise<T> {
  if (busy.has(id)) throw httpError('registry_busy', { id });
  busy.add(id);
  try {
    return await fn();
  } finally {
    busy.delete(id);
  }
}

async function waitFor<T>(probe: () => T | undefined): Promise<T | undefined> {
  const deadline = Date.now() + LOAD_WAIT_MS;
  for (;;) {
    const value = probe();
    if (value !== undefined || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
