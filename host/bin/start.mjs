#!/usr/bin/env node
import { pathToFileURL } from 'node:url';
import { ensureBuild } from './ensure-build.mjs';

await import(pathToFileURL(ensureBuild('host/main.js')).href);
