import type { SharedDocument } from '../../config/cluster-config.js';
import type { PluginVersions } from './plugin-versions.js';

/**
 * The current version of each packaged plugin as a cluster-shared document (row 3): installs,
 * pins and rollbacks run under its lock, and an instance that sees it move unpacks the versions
 * recorded in plugin_current. `following()` is false until the kernel runs (its start follows once).
 */
export function pluginPackagesDocument(versions: PluginVersions, following: () => boolean): SharedDocument {
  return {
    id: 3,
    name: 'plugin packages',
    read: () => versions.currentText(),
    async replace() {
      if (following()) await versions.follow();
    },
    coordinateWrites: (coordinator) => versions.coordinateWrites(coordinator),
  };
}
