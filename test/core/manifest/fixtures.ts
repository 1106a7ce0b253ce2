import { CONTRACT_VERSIONS } from '../../../core/sdk/contracts/index.js';
import type { ValidateManifestOptions } from '../../../core/manifest/index.js';

/** The host the tests validate against: this repository's contracts, host version 0.1.0. */
export const HOST: ValidateManifestOptions = { hostVersion: '0.1.0', contracts: CONTRACT_VERSIONS };

type Json = Record<string, any>;

/** A valid manifest of a code plugin; each call returns a fresh copy to break. */
export function entryManifest(): Json {
  return {
    manifestVersion: 1,
    id: 'local-storage',
    name: 'Local storage',
    version: '1.0.0',
    description: 'Keeps artifacts in a local directory.',
    author: 'Switchboard',
    host: '^0.1',
    provides: [{ kind: 'storage', contract: 'storage@^1' }],
    entry: './index.js',
  };
}

/** A valid manifest of a declarative HTTP fax provider. */
export function httpManifest(): Json {
  return {
    manifestVersion: 1,
    id: 'acme-fax',
    name: 'Acme Fax',
    version: '1.2.0',
    description: 'Sends faxes through the Acme REST API.',
    author: 'Acme Inc.',
    host: '>=0.1.0 <0.2.0',
    provides: [{ kind: 'fax', contract: 'fax@^1' }],
    capabilities: ['network'],
    egress: ['api.acme.example', '*.files.acme.example:8443'],
    settings: {
      api_key: { type: 'string', required: true, secret: true, env: 'ACME_API_KEY', description: 'API key' },
      sender: { type: 'string', default: '+15550100' },
      region: { type: 'string', enum: ['us', 'eu'], default: 'us' },
    },
    http: {
      actions: {
        send: {
          method: 'POST',
          url: 'https://api.acme.example/v1/faxes?region={{ settings.region }}',
          headers: { 'X-Client': 'switchboard' },
          auth: { kind: 'bearer', token: '{{ secrets.api_key }}' },
          body: {
            kind: 'json',
            template: { to: '{{ to }}', from: '{{settings.sender}}', media: ['{{ document_url }}'], callback: '{{ callback_url }}', ref: '{{ job_id }}', retries: 2, urgent: false, note: null },
          },
          response: { job_id: 'data.id', status: 'data.status', error: 'errors[0].message' },
          timeout_ms: 15000,
        },
        status: {
          method: 'GET',
          url: 'https://api.acme.example/v1/faxes/{{ provider_sid }}',
          auth: { kind: 'api_key_header', header: 'X-Api-Key', value: '{{ secrets.api_key }}' },
          response: { status: 'faxes[0].status', pages: 'faxes[0].pages' },
        },
        cancel: {
          method: 'DELETE',
          url: 'https://upload.files.acme.example:8443/faxes/{{ provider_sid }}',
          body: { kind: 'none' },
        },
      },
      status_map: { queued: 'queued', sending: 'in_progress', delivered: 'SUCCESS', failed: 'FAILED' },
      default_status: 'in_progress',
    },
    maturity: 'beta',
    homepage: 'https://acme.example/fax',
    license: 'MIT',
  };
}

/** A valid manifest of a declarative alert sink. */
export function alertManifest(): Json {
  return {
    manifestVersion: 1,
    id: 'chat-alerts',
    name: 'Chat alerts',
    version: '0.3.1',
    description: 'Posts alerts to a chat webhook.',
    author: 'Ops',
    host: '0.x',
    provides: [{ kind: 'alert-sink', contract: 'alert-sink@^1.0.0' }],
    egress: ['hooks.chat.example'],
    settings: { channel: { type: 'string', default: '#ops' }, token: { type: 'string', secret: true, required: true } },
    alert: {
      method: 'POST',
      url: 'https://hooks.chat.example/services/{{ secrets.token }}',
      headers: { 'Content-Type': 'application/json' },
      body: { channel: '{{ settings.channel }}', text: '[{{ alert.severity }}] {{ alert.title }} ({{ alert.status }})', host: '{{ alert.context.host }}' },
    },
  };
}
