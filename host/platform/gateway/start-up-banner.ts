import type { AddressInfo } from 'node:net';
import type { PluginView } from '../../../core/kernel/plugin-views.js';
import type { OpenedDatabase } from '../db/database.js';

/** What a plugin waits for, as it reports it ("needs settings: url"). */
function waitingReason(id: string, lastError: string | null): string {
  if (!lastError) return 'needs settings';
  return lastError.replace(new RegExp(`^${id}: `), '');
}

/**
 * The record logged once listening: where to reach the gateway, where its state is, whether keys
 * are required, what still waits for settings. `lines` is the short block a readable log prints.
 */
export function startUpBanner(address: AddressInfo, facts: { dataDir: string; database: Pick<OpenedDatabase, 'dialect' | 'location'>; plugins: PluginView[]; keysRequired: boolean }) {
  const shownHost = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address.includes(':') ? `[${address.address}]` : address.address;
  const url = `http://${shownHost}:${address.port}`;
  const waiting = Object.fromEntries(facts.plugins.filter((p) => p.state === 'needs-config').map((p) => [p.id, waitingReason(p.id, p.last_error)]));
  const lines = [
    `url        ${url}   (bound to ${address.address})`,
    `console    ${url}/`,
    `docs       ${url}/docs`,
    `data       ${facts.dataDir}`,
    `database   ${facts.database.dialect} (${facts.database.location})`,
    `api keys   ${facts.keysRequired ? 'required (X-API-Key)' : 'not required yet: mint one with `switchboard keys mint`'}`,
    // One line however many: a fresh install has a dozen optional plugins without settings.
    ...(Object.keys(waiting).length
      ? [`plugins    ${Object.keys(waiting).length} need settings (${Object.keys(waiting).join(', ')}): \`switchboard plugins list\` or the console's Plugins page says which`]
      : []),
  ];
  return { port: address.port, host: address.address, url, docs: `${url}/docs`, data_dir: facts.dataDir, database: facts.database.dialect, keys_required: facts.keysRequired, waiting_for_settings: waiting, lines };
}
