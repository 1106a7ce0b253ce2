import { Stub } from '../components.js';

export function PluginsPage() {
  return (
    <Stub
      what={[
        'Every plugin with its state, generation, health and diagnostics',
        "A settings form generated from each plugin's settings schema (secrets write-only, test before save, env-overridden keys marked)",
        'The registry, with install and uninstall; manifests dropped into the data directory appear without a reload',
      ]}
    />
  );
}

