#!/usr/bin/env node
// tsc emits no file for src/schema.d.ts (a declaration file is input only), yet dist/index.d.ts
// imports ./schema.js: copy it beside the emitted declarations so the built types keep the schema.
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
copyFileSync(path.join(here, 'src/schema.d.ts'), path.join(here, 'dist/schema.d.ts'));
