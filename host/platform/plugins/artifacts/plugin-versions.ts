import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile, cp } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Kernel } from '../../../../core/kernel/kernel.js';
import type { PluginView } from '../../../../core/kernel/plugin-views.js';
import type { WithStorage } from '../../../../core/kernel/plugin-store.js';
import { parseManifestText } from '../../../../core/manifest/index.js';
import { writeFileAtomic } from '../../../../core/config/atomic-file.js';
import { CONTRACT_VERSIONS } from '../../../../core/sdk/index.js';
import type { AuditLog } from '../../audit/audit-log.js';
import type { ConfigRegistry } from '../../config/registry.js';
import type { PlatformTables, PluginPackageTable } from '../../db/schema.js';
import { platformErrors } from '../../errors/platform-errors.js';
import type { Logger } from 'pino';
import { FILE_LIST, PackageProblem, readPluginPackage, type PluginPackage } from './plugin-package.js';
import { checkSignature, trustedFingerprints } from './package-signature.js';
import { hostInRange } from '../registry-catalogue.js';

/** An installed version as GET /plugins/{id}/versions lists it. */
export type PackageVersion = Omit<PluginPackageTable, 'id' | 'plugin_id'> & { current: boolean };

export interface PluginVersionsDeps {
  kernel: Kernel;
  db: Kysely<PlatformTables>;
  config: ConfigRegistry;
  audit: AuditLog;
  logger: Logger;
  hostVersion: string;
  /** Where the current version of each package is unpacked (a folder plugin `<id>/`). */
  manifestsDir: string;
  /** Where the packages' bytes are kept: `<dir>/<id>/<version>.tgz`. */
  packagesDir: string;
  /** A cluster's storage backend: every package is put there too, and read from there by an instance that lacks it. */
  shared?: WithStorage;
}

type Coordinator = <T>(write: () => Promise<T>) => Promise<T>;

const LOAD_WAIT_MS = 15_000;
const SRI = /^(sha256|sha512)-([A-Za-z0-9+/]+={0,2})$/;

/** `sha256-...`/`sha512-...` of the bytes, in the algorithm the given integrity names. */
export function integrityMatches(bytes: Buffer, integrity: string): { ok: boolean; got: string } {
  const m = SRI.exec(integrity.trim());
  const algorithm = m?.[1] ?? 'sha512';
  const got = `${algorithm}-${createHash(algorithm).update(bytes).digest('base64')}`;
  return { ok: !!m && got === integrity.trim(), got };
}

export function isIntegrity(value: string): boolean {
  return SRI.test(value.trim());
}

/**
 * Installed plugin packages: each version's bytes kept (a bounded history), the current one
 * unpacked as a folder plugin in the manifests directory, switched through the kernel's usual
 * reload (a new generation, the old one drained). A version that does not start is not made
 * current: the previous folder goes back and keeps serving.
 */
export class PluginVersions {
  private readonly busy = new Set<string>();
  private coordinator: Coordinator = (write) => write();
  private following: Promise<void> = Promise.resolve();

  constructor(private readonly deps: PluginVersionsDeps) {}

  /** Hands every install, pin and rollback to `coordinator` (the cluster's lock on the shared current versions). */
  coordinateWrites(coordinator: Coordinator): void {
    this.coordinator = coordinator;
  }

  /** The current version and pin of every packaged plugin, as text (what the instances of a cluster compare). */
  async currentText(): Promise<string> {
    const rows = await this.deps.db.selectFrom('plugin_current').select(['plugin_id', 'version', 'pinned']).orderBy('plugin_id').execute();
    return JSON.stringify(rows.map((r) => [r.plugin_id, r.version, Number(r.pinned)]));
  }

  /**
   * Brings this instance to the recorded current versions (another instance installed, pinned or
   * rolled back): each plugin whose folder holds another version gets the current one unpacked,
   * through the usual reload. Nothing is recorded: the instance that made the change did.
   */
  follow(): Promise<void> {
    // A failed pass (the database away) does not stop the ones after it.
    this.following = this.following.then(() => this.followOnce(), () => this.followOnce());
    return this.following;
  }

  private async followOnce(): Promise<void> {
    const rows = await this.deps.db.selectFrom('plugin_current').select(['plugin_id', 'version']).execute();
    for (const { plugin_id: id, version } of rows) {
      if ((await this.unpackedVersion(id)) === version || this.busy.has(id)) continue;
      try {
        await this.unpack(id, version);
        this.deps.logger.info({ plugin: id, version }, 'plugin version made current on another instance applied');
      } catch (err) {
        this.deps.logger.warn({ plugin: id, version, err: (err as Error).message }, 'plugin version made current on another instance did not start here; the previous one keeps serving');
      }
    }
  }

  /** The version of the package unpacked in the plugin's folder, if any. */
  private async unpackedVersion(id: string): Promise<string | undefined> {
    try {
      const list = JSON.parse(await readFile(path.join(path.dirname(this.manifestFile(id)), FILE_LIST), 'utf8')) as { version?: unknown };
      return typeof list.version === 'string' ? list.version : undefined;
    } catch {
      return undefined;
    }
  }

  /** Checks a package (integrity, files, signature policy, host range, manifest) and installs it; refused packages write nothing. */
  async install(bytes: Buffer, integrity: string, actor: string): Promise<{ id: string; version: string; current: boolean; warnings: string[] }> {
    const { config, hostVersion } = this.deps;
    const sri = integrityMatches(bytes, integrity);
    if (!sri.ok) throw platformErrors.error('package_integrity_mismatch', { expected: integrity.trim(), got: sri.got });
    const pkg = await readOrRefuse(bytes);
    const id = pkg.list.id;
    const warnings: string[] = [];
    let manifest: { id?: unknown; version?: unknown; host?: unknown };
    try {
      manifest = JSON.parse(pkg.manifestText) as typeof manifest;
    } catch {
      throw platformErrors.error('package_invalid', { reason: 'manifest.json is not JSON' });
    }
    if (manifest.id !== id || manifest.version !== pkg.list.version) throw platformErrors.error('package_invalid', { reason: `files.json names ${id}@${pkg.list.version}, the manifest ${String(manifest.id)}@${String(manifest.version)}` });
    if (typeof manifest.host === 'string' && !hostInRange(manifest.host, hostVersion)) {
      throw platformErrors.error('package_incompatible_host', { id, range: manifest.host, host: hostVersion });
    }
    const checked = parseManifestText(pkg.manifestText, { hostVersion, contracts: CONTRACT_VERSIONS, declarativeBlocks: this.deps.kernel.declarative.blocks(), location: {} });
    const errors = checked.diagnostics.filter((d) => d.severity === 'error');
    if (!checked.manifest || errors.length) throw platformErrors.error('package_invalid', { reason: errors.map((d) => `${d.code} at ${d.path || '(root)'}: ${d.message}`).join('; ') });
    const signer = this.signerOf(pkg, warnings);
    return this.exclusive(id, async () => {
      const existing = this.deps.kernel.get(id);
      if (existing && existing.manifest_path !== this.manifestFile(id)) {
        throw platformErrors.error('plugin_already_installed', { id });
      }
      const version = pkg.list.version;
      const row = await this.deps.db.selectFrom('plugin_packages').selectAll().where('id', '=', `${id}@${version}`).executeTakeFirst();
      if (row && row.digest !== pkg.digest) throw platformErrors.error('package_version_exists', { id, version });
      if (!row) {
        await mkdir(path.join(this.deps.packagesDir, id), { recursive: true, mode: 0o700 });
        await writeFileAtomic(this.packageFile(id, version), bytes, { private: true });
        if (this.deps.shared) {
          const key = sharedKey(id, version);
          await this.deps.shared((s) => s.put(key, bytes)).catch(async (err: Error) => {
            await rm(this.packageFile(id, version), { force: true });
            throw platformErrors.error('package_storage_failed', { reason: err.message });
          });
        }
        await this.deps.db
          .insertInto('plugin_packages')
          .values({ id: `${id}@${version}`, plugin_id: id, version, digest: pkg.digest, integrity: integrity.trim(), signer, size: bytes.length, installed_by: actor, installed_at: new Date().toISOString() })
          .execute();
      }
      this.deps.audit.record('plugin_package_installed', { plugin: id, version, digest: pkg.digest, signer: signer ?? 'unsigned', by: actor });
      const current = await this.currentOf(id);
      let made = false;
      if (current?.pinned) warnings.push(`"${id}" is pinned to ${current.version}: ${version} is kept but not started`);
      else {
        await this.activate(id, version, actor);
        made = true;
      }
      await this.prune(id);
      return { id, version, current: made, warnings };
    });
  }

  async versions(id: string): Promise<{ current: string | null; pinned: boolean; versions: PackageVersion[] }> {
    const current = await this.currentOf(id);
    const rows = await this.deps.db.selectFrom('plugin_packages').selectAll().where('plugin_id', '=', id).orderBy('installed_at', 'desc').execute();
    return {
      current: current?.version ?? null,
      pinned: !!current?.pinned,
      versions: rows.map((r) => ({ version: r.version, digest: r.digest, integrity: r.integrity, signer: r.signer, size: r.size, installed_by: r.installed_by, installed_at: r.installed_at, current: r.version === current?.version })),
    };
  }

  /** Makes `version` (or the version installed before the current one) current through a new generation. */
  async rollback(id: string, version: string | undefined, actor: string): Promise<{ from: string | null; to: string }> {
    return this.exclusive(id, async () => {
      const { current, versions } = await this.versions(id);
      if (!versions.length) throw platformErrors.error('plugin_not_found', { id });
      const target = version ?? versions.find((v) => !v.current && (current === null || versions.findIndex((x) => x.version === current) < versions.indexOf(v)))?.version;
      if (!target || !versions.some((v) => v.version === target)) throw platformErrors.error('plugin_version_not_found', { id, version: target ?? 'before the current one' });
      await this.activate(id, target, actor);
      this.deps.audit.record('plugin_rolled_back', { plugin: id, from: current ?? 'none', to: target, by: actor });
      return { from: current, to: target };
    });
  }

  /** Pins a version (made current first) so later installs are kept but not started; `version` null unpins. */
  async pin(id: string, version: string | null, actor: string): Promise<{ current: string | null; pinned: boolean }> {
    return this.exclusive(id, async () => {
      const { versions, current } = await this.versions(id);
      if (!versions.length) throw platformErrors.error('plugin_not_found', { id });
      if (version !== null) {
        if (!versions.some((v) => v.version === version)) throw platformErrors.error('plugin_version_not_found', { id, version });
        if (version !== current) await this.activate(id, version, actor);
      }
      await this.deps.db.updateTable('plugin_current').set({ pinned: version === null ? 0 : 1, updated_by: actor, updated_at: new Date().toISOString() }).where('plugin_id', '=', id).execute();
      this.deps.audit.record(version === null ? 'plugin_unpinned' : 'plugin_pinned', { plugin: id, version: version ?? current ?? 'none', by: actor });
      return { current: version ?? current, pinned: version !== null };
    });
  }

  private signerOf(pkg: PluginPackage, warnings: string[]): string | null {
    const policy = this.deps.config.get('PLUGIN_SIGNATURES') as 'required' | 'warn' | 'off';
    let state;
    try {
      state = checkSignature(pkg);
    } catch (err) {
      throw platformErrors.error('package_tampered', { reason: (err as Error).message });
    }
    const signer = state.state === 'signed' ? state.fingerprint : null;
    if (policy === 'off') return signer;
    const trusted = signer !== null && trustedFingerprints(this.deps.config.get('PLUGIN_TRUSTED_KEYS') as string).has(signer);
    if (trusted) return signer;
    if (policy === 'required') {
      throw signer === null ? platformErrors.error('package_unsigned', { id: pkg.list.id }) : platformErrors.error('package_untrusted', { id: pkg.list.id, signer });
    }
    const warning = signer === null ? `the package of "${pkg.list.id}" is not signed` : `the package of "${pkg.list.id}" is signed by ${signer}, which is not in PLUGIN_TRUSTED_KEYS`;
    warnings.push(warning);
    this.deps.logger.warn({ plugin: pkg.list.id, signer }, warning);
    return signer;
  }

  /** Unpacks a stored version, and records it as current once it started. */
  private async activate(id: string, version: string, actor: string): Promise<void> {
    const { kernel, db } = this.deps;
    const digest = await this.unpack(id, version);
    const now = new Date().toISOString();
    await db
      .insertInto('plugin_current')
      .values({ plugin_id: id, version, pinned: 0, updated_by: actor, updated_at: now })
      .onConflict((oc) => oc.column('plugin_id').doUpdateSet({ version, updated_by: actor, updated_at: now }))
      .execute();
    this.deps.audit.record('plugin_version_activated', { plugin: id, version, digest, generation: kernel.get(id)?.generation ?? null, by: actor });
  }

  /** This instance's copy of a stored version's bytes; fetched from the cluster's storage when it has none. */
  private async bytesOf(id: string, version: string): Promise<Buffer> {
    try {
      return await readFile(this.packageFile(id, version));
    } catch (err) {
      const shared = this.deps.shared;
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || !shared) throw err;
      const key = sharedKey(id, version);
      const bytes = await shared((s) => s.get(key)).catch((e: Error) => {
        throw platformErrors.error('package_storage_failed', { reason: e.message });
      });
      await mkdir(path.join(this.deps.packagesDir, id), { recursive: true, mode: 0o700 });
      await writeFileAtomic(this.packageFile(id, version), bytes, { private: true });
      return bytes;
    }
  }

  /** Unpacks a stored version as the plugin's folder, reloads, and keeps it only when it starts; returns its digest. */
  private async unpack(id: string, version: string): Promise<string> {
    const { kernel, db } = this.deps;
    const bytes = await this.bytesOf(id, version);
    const row = await db.selectFrom('plugin_packages').select('digest').where('id', '=', `${id}@${version}`).executeTakeFirstOrThrow();
    const pkg = await readOrRefuse(bytes);
    if (pkg.digest !== row.digest) throw platformErrors.error('package_tampered', { reason: `the stored package of ${id}@${version} no longer has digest ${row.digest}` });
    const folder = path.dirname(this.manifestFile(id));
    const work = path.join(this.deps.packagesDir, id, `.work-${randomBytes(4).toString('hex')}`);
    const staged = path.join(work, 'next');
    for (const [name, body] of pkg.files) {
      await mkdir(path.dirname(path.join(staged, name)), { recursive: true });
      await writeFile(path.join(staged, name), body);
    }
    // The file list stays beside the code: it marks the folder as an installed package, which runs isolated by default.
    await writeFile(path.join(staged, FILE_LIST), pkg.listBytes);
    const before = kernel.get(id);
    const previous = existsSync(folder) ? path.join(work, 'previous') : undefined;
    try {
      if (previous) await move(folder, previous);
      await move(staged, folder);
      await kernel.rescan();
      const failure = await this.startFailure(id, version, before);
      if (failure) {
        await rm(folder, { recursive: true, force: true });
        if (previous) await move(previous, folder);
        await kernel.rescan();
        throw platformErrors.error('plugin_version_failed', { id, version, reason: failure });
      }
      return pkg.digest;
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /** Why the new version did not become the serving generation, or undefined once it did. */
  private async startFailure(id: string, version: string, before: PluginView | undefined): Promise<string | undefined> {
    const deadline = Date.now() + LOAD_WAIT_MS;
    for (;;) {
      const view = this.deps.kernel.get(id);
      if (view && view.version === version && view.state === 'active' && (before?.generation == null || view.generation !== before.generation || before.version === version)) return undefined;
      if (view?.last_error && view.version === version && ['failed', 'needs-config', 'rejected', 'active'].includes(view.state)) return view.last_error;
      if (Date.now() > deadline) return view?.last_error ?? `not active within ${LOAD_WAIT_MS / 1000} s (state ${view?.state ?? 'absent'})`;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Deletes the oldest versions beyond PLUGIN_VERSION_HISTORY, never the current one. */
  private async prune(id: string): Promise<void> {
    const keep = this.deps.config.get('PLUGIN_VERSION_HISTORY') as number;
    const { versions } = await this.versions(id);
    for (const old of versions.filter((v) => !v.current).slice(Math.max(0, keep - 1))) {
      await this.deps.db.deleteFrom('plugin_packages').where('id', '=', `${id}@${old.version}`).execute();
      await rm(this.packageFile(id, old.version), { force: true });
      const key = sharedKey(id, old.version);
      await this.deps.shared?.((s) => s.delete(key)).catch((err: Error) => this.deps.logger.warn({ plugin: id, version: old.version, err: err.message }, 'pruned package left in the storage backend'));
      this.deps.audit.record('plugin_package_pruned', { plugin: id, version: old.version });
    }
  }

  private async currentOf(id: string) {
    return this.deps.db.selectFrom('plugin_current').selectAll().where('plugin_id', '=', id).executeTakeFirst();
  }

  private manifestFile(id: string): string {
    return path.join(path.resolve(this.deps.manifestsDir), id, 'manifest.json');
  }

  private packageFile(id: string, version: string): string {
    return path.join(this.deps.packagesDir, id, `${version}.tgz`);
  }

  private async exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    // A change another instance made, still being applied here, is waited for, not refused: the
    // caller may have seen its version active a moment before the apply finished. Passes queued
    // after this one see `busy` and leave the plugin alone.
    for (let pass = this.following; ; ) {
      await pass.catch(() => undefined);
      if (pass === this.following) break;
      pass = this.following;
    }
    if (this.busy.has(id)) throw platformErrors.error('registry_busy', { id });
    this.busy.add(id);
    try {
      return await this.coordinator(fn);
    } finally {
      this.busy.delete(id);
    }
  }
}

/** A version's key in the storage backend (`+` of build metadata is outside the key alphabet). */
function sharedKey(id: string, version: string): string {
  return `plugin-packages/${id}/${version.replaceAll('+', '_')}.tgz`;
}

async function readOrRefuse(bytes: Buffer): Promise<PluginPackage> {
  try {
    return await readPluginPackage(bytes);
  } catch (err) {
    if (err instanceof PackageProblem) throw platformErrors.error(err.code, { reason: err.message });
    throw err;
  }
}

/** rename, or copy and remove across file systems (MANIFESTS_DIR may live elsewhere). */
async function move(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await cp(from, to, { recursive: true });
    await rm(from, { recursive: true, force: true });
  }
}
