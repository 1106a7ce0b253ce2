#!/usr/bin/env node
import { pathToFileURL } from 'node:url';
import { ensureBuildQuick, warnIfStale } from './ensure-build.mjs';

const ENTRY = 'host/main.js';
await import(pathToFileURL(ensureBuildQuick(ENTRY)).href);
// The walk of the sources runs once the gateway serves; it only warns.
setTimeout(() => warnIfStale(ENTRY), 2000).unref();
