#!/usr/bin/env node
import { pathToFileURL } from 'node:url';
import { ensureBuild, GATEWAY_SOURCES } from './ensure-build.mjs';
import { ensureWeb } from './build-web.mjs';

ensureWeb();
await import(pathToFileURL(ensureBuild('host/main.js', GATEWAY_SOURCES)).href);
