/**
 * The response path syntax of the `http` block: dotted keys and `[n]` indexes,
 * `data.id`, `faxes[0].status`, `[0].sid`. The manifest validator checks the shape.
 */
export type ResponsePathStep = string | number;

const STEP = /\.?([^.[\]\s]+)|\[(\d+)\]/y;

/** The steps of a path; throws on a path the manifest validator would refuse. */
export function parseResponsePath(path: string): ResponsePathStep[] {
  const steps: ResponsePathStep[] = [];
  STEP.lastIndex = 0;
  while (STEP.lastIndex < path.length) {
    const at = STEP.lastIndex;
    const match = STEP.exec(path);
    if (!match || (at === 0 && path.startsWith('.'))) throw new Error(`invalid response path "${path}"`);
    steps.push(match[1] !== undefined ? match[1] : Number(match[2]));
  }
  if (steps.length === 0) throw new Error('empty response path');
  return steps;
}

/** The value at `path` in a parsed JSON answer, or undefined when any step is missing. */
export function readResponsePath(value: unknown, path: string): unknown {
  let current = value;
  for (const step of parseResponsePath(path)) {
    if (typeof step === 'number') {
      if (!Array.isArray(current)) return undefined;
      current = current[step];
    } else {
      if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}
