import { defineConfig, type Plugin } from 'vite';
import { gzipSync } from 'node:zlib';

/** Prints the bundle's size, raw and gzipped, and the build time once the bundle is written. */
function bundleReport(): Plugin {
  const started = Date.now();
  return {
    name: 'switchboard-bundle-report',
    apply: 'build',
    generateBundle(_options, bundle) {
      let raw = 0;
      let gzipped = 0;
      for (const item of Object.values(bundle)) {
        const bytes = item.type === 'chunk' ? Buffer.from(item.code) : Buffer.from(item.source);
        raw += bytes.length;
        gzipped += gzipSync(bytes).length;
      }
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(`[console] bundle ${(raw / 1024).toFixed(1)} KB, ${(gzipped / 1024).toFixed(1)} KB gzipped, built in ${seconds} s`);
    },
  };
}

// `npx vite web` serves the console with live reload on 127.0.0.1:5173 (the default
// FRONTEND_DEV_URL, so /api/dev/status reports dev_server) and passes API paths to the gateway
// at SWITCHBOARD_URL (default http://127.0.0.1:8080).
const gateway = process.env.SWITCHBOARD_URL ?? 'http://127.0.0.1:8080';
const API_PREFIXES = ['/health', '/admin', '/api', '/fax', '/inbound', '/plugins', '/plugin-registry', '/webhooks', '/mcp', '/metrics', '/openapi.json', '/docs'];

export default defineConfig({
  server: { host: '127.0.0.1', port: 5173, strictPort: true, proxy: Object.fromEntries(API_PREFIXES.map((p) => [p, { target: gateway, changeOrigin: false }])) },
  root: import.meta.dirname,
  base: '/',
  // No inline script anywhere: the gateway's Content-Security-Policy forbids it.
  build: { outDir: 'dist', emptyOutDir: true, assetsInlineLimit: 0, modulePreload: { polyfill: false }, reportCompressedSize: false },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [bundleReport()],
  logLevel: 'warn',
});
