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

export function SearchPage() {
  return (
    <Stub
      what={[
        'A repository picker and a search box with results (path, lines, snippet, score)',
        'Index runs with their live status lines, keywords and traces',
        'Questions answered as a stream, with citations linked to the snippets',
      ]}
    />
  );
}

export function WorkbenchPage() {
  return (
    <Stub
      what={[
        "The judge backend's status and switch",
        'Containers with start, stop, restart and logs (stop and restart confirm the service by name)',
        'Run accounting, refreshed every 30 seconds; alerts firing and recent deliveries',
        'Integrations → Webhooks: masked targets, add, remove, send a test',
      ]}
    />
  );
}
