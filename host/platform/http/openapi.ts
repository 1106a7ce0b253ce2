import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { HttpApi } from './api.js';

const documents = new WeakMap<HttpApi, object>();

/** /openapi.json of a gateway, built once on first use (every route is declared by then) and shared by its readers. */
export function openApiDocument(api: HttpApi, version: string): object {
  let document = documents.get(api);
  if (!document) documents.set(api, (document = buildOpenApiDocument(api, version)));
  return document;
}

/** /openapi.json, generated from the route declarations (lint rules: redocly.yaml). */
export function buildOpenApiDocument(api: HttpApi, version: string): object {
  api.registry.registerComponent('securitySchemes', 'ApiKeyAuth', { type: 'apiKey', in: 'header', name: 'X-API-Key' });
  const generator = new OpenApiGeneratorV31(api.registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Switchboard gateway',
      version,
      license: { name: 'MIT', identifier: 'MIT' },
      description:
        'Fax gateway, code-search configuration and platform workbench on one plugin host. Errors are `{"detail": "...", "code": "..."}`. Each operation states the API-key scope it needs.',
    },
    servers: [{ url: '/' }],
  });
}

/** The /docs page: the swagger-ui viewer served from the swagger-ui-dist package, pointed at /openapi.json. */
export const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Switchboard API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>`;

export const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true });`;
