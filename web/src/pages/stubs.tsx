import { Stub } from '../components.js';

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
