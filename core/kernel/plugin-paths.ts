import { realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../sdk/errors.js';

/** Where plugin path settings may point: inside DATA_DIR, or at or under a PLUGIN_PATHS_ALLOW entry. */
export interface PluginPathRoots {
  dataDir: string;
  /** PLUGIN_PATHS_ALLOW (environment only): absolute directories the operator allows besides DATA_DIR. */
  allow?: readonly string[];
}

/**
 * The absolute path a path setting names (relative to DATA_DIR). Refused with a ConfigError
 * naming the field: a path outside every root by `..` or as an absolute path, DATA_DIR
 * itself (a plugin that sweeps its directory would sweep the gateway's state), and a path
 * whose existing part is a symbolic link leading outside.
 */
export function resolvePluginPath(field: string, value: string, roots: PluginPathRoots): string {
  const dataDir = path.resolve(roots.dataDir);
  const target = path.resolve(dataDir, value);
  const allowed = [{ root: dataDir, self: false }, ...(roots.allow ?? []).filter((a) => path.isAbsolute(a)).map((a) => ({ root: path.resolve(a), self: true }))];
  const hint = 'paths of plugin settings stay inside DATA_DIR (relative paths are under it); an operator allows another directory in PLUGIN_PATHS_ALLOW (environment)';
  const root = allowed.find((r) => within(target, r.root, r.self));
  if (!root) throw new ConfigError(`setting "${field}": ${JSON.stringify(value)} is ${target === dataDir ? 'DATA_DIR itself' : 'outside DATA_DIR'}; ${hint}`, field);
  // Where it really lands, links followed, must be inside a root too (any of them).
  const real = realpathOfExistingPart(target);
  if (!allowed.some((r) => within(real, realpathOfExistingPart(r.root), r.self))) {
    throw new ConfigError(`setting "${field}": ${JSON.stringify(value)} leads outside ${root.root === dataDir ? 'DATA_DIR' : root.root} through a symbolic link; ${hint}`, field);
  }
  return target;
}

function within(target: string, root: string, self: boolean): boolean {
  if (target === root) return self;
  const relative = path.relative(root, target);
  return relative !== '' && !relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative);
}

/** The real path of the longest existing prefix of `target`, with the missing rest appended. */
function realpathOfExistingPart(target: string): string {
  const missing: string[] = [];
  for (let current = target; ; current = path.dirname(current)) {
    try {
      return path.join(realpathSync(current), ...missing.reverse());
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || path.dirname(current) === current) throw err;
      missing.push(path.basename(current));
    }
  }
}

/** The data folder of third-party code run isolated: DATA_DIR/plugin-data/<id>, the only place it may write. */
export function isolatedDataDir(dataDir: string, pluginId: string): string {
  return path.join(dataDir, 'plugin-data', pluginId);
}
