import { responsePathSteps, valueAtPath, type ResponsePathStep } from '../../manifest/index.js';

/** The steps of a path; throws on a path the manifest validator refuses (same parser). */
export function parseResponsePath(path: string): ResponsePathStep[] {
  const steps = responsePathSteps(path);
  if (!steps) throw new Error(path === '' ? 'empty response path' : `invalid response path "${path}"`);
  return steps;
}

/** The value at `path` in a parsed JSON answer, or undefined when any step is missing. */
export function readResponsePath(value: unknown, path: string): unknown {
  return valueAtPath(value, parseResponsePath(path));
}
