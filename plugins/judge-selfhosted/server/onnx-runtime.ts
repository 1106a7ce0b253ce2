import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The ONNX runtime (onnxruntime-node, 288 MB of native binaries) is not part of `npm install`:
// only an operator who runs the judge server installs it, with `npm run judge-runtime`, into this
// plugin's runtime/ folder (its own package.json and lock). It is looked for there first, then
// wherever Node resolves packages from, so an operator who installed it another way is served too.

export type OnnxRuntime = typeof import('onnxruntime-common');

export const JUDGE_RUNTIME_INSTALL = 'npm run judge-runtime';

/** The plugin's runtime/ folder: beside server/ in the sources, found from the sources or from dist/. */
export function runtimeFolder(from = path.dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'plugins', 'judge-selfhosted', 'runtime');
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** Where onnxruntime-node resolves to, or undefined when it is not installed. */
export function onnxRuntimeEntry(): string | undefined {
  const folder = runtimeFolder();
  const bases = [...(folder ? [path.join(folder, 'package.json')] : []), fileURLToPath(import.meta.url)];
  for (const base of bases) {
    try {
      return createRequire(base).resolve('onnxruntime-node');
    } catch {
      // not installed at this base; try the next
    }
  }
  return undefined;
}

let loaded: Promise<OnnxRuntime> | undefined;

/** The ONNX runtime; rejects with the install command when it is not installed. */
export function loadOnnxRuntime(): Promise<OnnxRuntime> {
  loaded ??= (async () => {
    const entry = onnxRuntimeEntry();
    if (!entry) throw new Error(`the ONNX runtime (onnxruntime-node) is not installed: ${JUDGE_RUNTIME_INSTALL}`);
    return (await import(pathToFileURL(entry).href)) as OnnxRuntime;
  })();
  return loaded;
}
