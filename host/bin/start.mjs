#!/usr/bin/env node
import { pathToFileURL } from 'node:url';
import { ensureBuildQuick, warnIfStale } from './ensure-build.mjs';
import { ensureWeb } from './build-web.mjs';

const ENTRY = 'host/main.js';
// The console (web/ -> web/dist) is a walk of a few dozen files; it builds only when stale.
ensureWeb();
await import(pathToFileURL(ensureBuildQuick(ENTRY)).href);
// The walk of the sources runs once the gateway serves; it only warns.
setTimeout(() => warnIfStale(ENTRY), 2000).unref();
