import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { z } from 'zod';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { OutboundGuard } from '../../../../core/kernel/egress.js';
import { BodyTooLargeError, readBodyCapped } from '../../../../core/sdk/read-body-capped.js';
import { PLUGIN_ID_PATTERN, PLUGIN_ID_RULE } from '../../../../core/manifest/index.js';
import type { ConfigRegistry } from '../../config/registry.js';
import type { HttpApi } from '../../http/api.js';
import { httpError, invalid } from '../../http/error-catalogue.js';
import { actorOf } from '../../auth/access-guard.js';
import { PluginEntry } from '../plugin-routes.js';
import { MAX_PACKAGE_BYTES } from './plugin-package.js';
import { readPackageForm } from './package-upload.js';
import { isIntegrity, type PluginVersions } from './plugin-versions.js';

export interface PackageRouteDeps {
  kernel: Kernel;
  versions: PluginVersions;
  config: ConfigRegistry;
  outbound: OutboundGuard;
}

const IdParams = z.object({ id: z.string().regex(PLUGIN_ID_PATTERN, PLUGIN_ID_RULE) });
const Version = z.string().min(1).max(64).regex(/^[0-9A-Za-z.+-]+$/, 'a semver version');
const PACKAGE_ERRORS = ['package_invalid', 'package_tampered', 'package_integrity_mismatch', 'package_unsigned', 'package_untrusted', 'package_incompatible_host', 'package_version_exists', 'package_storage_failed', 'plugin_version_failed', 'plugin_already_installed', 'registry_busy'];

const InstallForm = z.object({
  package: z.string().optional().describe('The package file (`<id>-<version>.tgz` of `switchboard plugins pack`); or give `url`'),
  url: z.string().optional().describe('An https URL to fetch the package from (through the outbound guard, size-capped); or upload `package`'),
  integrity: z.string().describe('SRI of the package bytes: `sha256-<base64>` or `sha512-<base64>` (`switchboard plugins pack` and `verify` print it)'),
});
const VersionView = z.object({
  version: z.string(),
  digest: z.string().describe('sha256 of the package\'s files.json: what a signature covers'),
  integrity: z.string(),
  signer: z.string().nullable().describe('SHA256 fingerprint of the signing key; null when unsigned'),
  size: z.number().int(),
  installed_by: z.string(),
  installed_at: z.string(),
  current: z.boolean(),
});
const Versions = z.object({ id: z.string(), current: z.string().nullable(), pinned: z.boolean(), versions: z.array(VersionView) });

/**
 * Plugin packages: install one (uploaded or by https URL, with its integrity), list a plugin's
 * installed versions, roll back, pin. Every switch is a new generation through the kernel's reload.
 */
export function registerPackageRoutes(api: HttpApi, deps: PackageRouteDeps): void {
  const { kernel, versions } = deps;
  const routes = api.group({ tags: ['plugins'], access: { scope: 'plugins:manage', administrative: true } });
  const reads = api.group({ tags: ['plugins'], access: { scope: 'admin', administrative: true } });
  const maxBytes = () => Math.min(MAX_PACKAGE_BYTES, (deps.config.get('PLUGIN_PACKAGE_MAX_MB') as number) * 1024 * 1024);
  let ca: { file: string | undefined; list: readonly string[] | undefined } | undefined;
  const caList = () => {
    const file = deps.config.get('PLUGIN_PACKAGE_CA_FILE') as string | undefined;
    if (!ca || ca.file !== file) ca = { file, list: file ? [...rootCertificates, readFileSync(file, 'utf8')] : undefined };
    return ca.list;
  };

  async function fetchPackage(raw: string): Promise<Buffer> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalid('url', 'an absolute https URL', 400);
    }
    if (url.protocol !== 'https:') throw invalid('url', 'an https URL', 400);
    try {
      const list = caList();
      const res = await deps.outbound.fetch(url, { redirect: 'error' }, { timeoutMs: 30_000, ...(list ? { ca: list } : {}) });
      if (!res.ok) {
        await res.body?.cancel().catch(() => {});
        throw new Error(`${url.origin} answered ${res.status}`);
      }
      return await readBodyCapped(res, maxBytes());
    } catch (err) {
      if (err instanceof BodyTooLargeError) throw httpError('payload_too_large', { what: 'plugin package', limit: `${maxBytes()} bytes` });
      throw httpError('package_fetch_failed', { reason: (err as Error).message });
    }
  }

  routes.route(
    {
      method: 'post',
      path: '/plugin-registry/install',
      summary: 'Install a plugin package (uploaded or by https URL) with its integrity; it becomes current once it starts',
      description:
        'Checks, before anything is written: the `integrity` of the bytes, every file against files.json, the signature (PLUGIN_SIGNATURES, PLUGIN_TRUSTED_KEYS), the host range, the manifest. ' +
        'The package is kept among the plugin\'s versions (PLUGIN_VERSION_HISTORY) and unpacked as a folder plugin in the manifests directory; a version that fails to start is not made current.',
      rawBody: { contentType: 'multipart/form-data', schema: InstallForm },
      bodyErrorStatus: 400,
      errors: [...PACKAGE_ERRORS, 'package_fetch_failed', 'unsupported_media_type'],
      responses: {
        201: { description: 'Installed: the plugin as /plugins shows it, the version and whether it is current', schema: z.object({ plugin: PluginEntry.nullable(), version: z.string(), current: z.boolean(), warnings: z.array(z.string()) }) },
      },
    },
    async ({ req, res }) => {
      const form = await readPackageForm(req, maxBytes());
      const integrity = form.fields.integrity;
      if (!integrity || !isIntegrity(integrity)) throw invalid('integrity', 'required: sha256-<base64> or sha512-<base64> of the package', 400);
      if (!form.file === !form.fields.url) throw invalid('package', 'upload the package or give its url, one of the two', 400);
      const bytes = form.file ?? (await fetchPackage(form.fields.url!));
      const installed = await versions.install(bytes, integrity, actorOf(res));
      res.status(201);
      return { plugin: kernel.get(installed.id) ?? null, version: installed.version, current: installed.current, warnings: installed.warnings };
    },
  );

  reads.route(
    {
      method: 'get',
      path: '/plugins/:id/versions',
      summary: "A packaged plugin's installed versions: digest, signer, who installed each and when, which is current",
      params: IdParams,
      errors: ['plugin_not_found'],
      responses: { 200: { description: 'Newest first', schema: Versions } },
    },
    async ({ params }) => {
      const listed = await versions.versions(params.id);
      if (!listed.versions.length) throw httpError('plugin_not_found', { id: params.id });
      return { id: params.id, ...listed };
    },
  );

  routes.route(
    {
      method: 'post',
      path: '/plugins/:id/rollback',
      summary: 'Make the previous (or a named) installed version current, through a new generation',
      params: IdParams,
      body: z.object({ version: Version.optional().describe('The version to go back to; default the one installed before the current') }).strict().optional(),
      bodyErrorStatus: 400,
      errors: ['plugin_not_found', 'plugin_version_not_found', 'plugin_version_failed', 'package_tampered', 'package_storage_failed', 'registry_busy'],
      responses: { 200: { description: 'Rolled back', schema: z.object({ from: z.string().nullable(), to: z.string(), plugin: PluginEntry.nullable() }) } },
    },
    async ({ params, body, res }) => {
      const done = await versions.rollback(params.id, body?.version, actorOf(res));
      return { ...done, plugin: kernel.get(params.id) ?? null };
    },
  );

  routes.route(
    {
      method: 'put',
      path: '/plugins/:id/pin',
      summary: 'Pin an installed version: made current, and later installs are kept but not started; `version: null` unpins',
      params: IdParams,
      body: z.object({ version: Version.nullable() }).strict(),
      bodyErrorStatus: 400,
      errors: ['plugin_not_found', 'plugin_version_not_found', 'plugin_version_failed', 'package_tampered', 'package_storage_failed', 'registry_busy'],
      responses: { 200: { description: 'Pinned or unpinned', schema: z.object({ current: z.string().nullable(), pinned: z.boolean() }) } },
    },
    ({ params, body, res }) => versions.pin(params.id, body.version, actorOf(res)),
  );
}
