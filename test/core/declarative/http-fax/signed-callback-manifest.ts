/**
 * A manifest provider that is told where to call back (`notify: {{ callback_url }}`) and signs
 * its JSON callbacks with `hook_key` in X-Hook-Signature; it has no status action, so only a
 * callback can finish a job. Settings come from `<ENV>_BASE_URL` and `<ENV>_HOOK_KEY`.
 */
export function signedCallbackManifest(id: string, name: string, env: string, extra: Record<string, unknown> = {}) {
  return {
    manifestVersion: 1,
    id,
    name,
    version: '1.0.0',
    description: 'manifest provider with signed status callbacks',
    author: 'tests',
    host: '^0.1.0',
    provides: [{ kind: 'fax', contract: 'fax@^1' }],
    egress: ['settings:base_url'],
    settings: {
      base_url: { type: 'string', required: true, env: `${env}_BASE_URL` },
      hook_key: { type: 'string', secret: true, env: `${env}_HOOK_KEY` },
    },
    http: {
      actions: {
        send: {
          method: 'POST',
          url: '{{ settings.base_url }}/faxes',
          body: { kind: 'json', template: { to: '{{ to }}', media: '{{ document_url }}', notify: '{{ callback_url }}' } },
          response: { job_id: 'id' },
        },
      },
      status_map: { delivered: 'SUCCESS', failed: 'FAILED' },
      callback: { format: 'json', status: 'state', provider_sid: 'id', pages: 'pages', signature: { header: 'X-Hook-Signature', secret: 'hook_key' } },
    },
    ...extra,
  };
}
