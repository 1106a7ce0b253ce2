/**
 * The response path syntax of the `http` block, parsed in one place for the validator and the
 * runtime: a key or `[n]` first, then `.key` or `[n]` steps (`data.id`, `faxes[0].status`,
 * `[0].sid`). A key is any run of characters other than `.`, `[`, `]` and white space.
 */
export type ResponsePathStep = string | number;

const FIRST = /([^.[\]\s]+)|\[(\d+)\]/y;
const NEXT = /\.([^.[\]\s]+)|\[(\d+)\]/y;

/** The steps of a path, or null when it is not one. */
export function responsePathSteps(path: string): ResponsePathStep[] | null {
  const steps: ResponsePathStep[] = [];
  let at = 0;
  while (at < path.length) {
    const step = at === 0 ? FIRST : NEXT;
    step.lastIndex = at;
    const match = step.exec(path);
    if (!match) return null;
    steps.push(match[1] !== undefined ? match[1] : Number(match[2]));
    at = step.lastIndex;
  }
  return steps.length ? steps : null;
}

/** The value at `steps` in a parsed JSON answer, or undefined when any step is missing. */
export function valueAtPath(value: unknown, steps: readonly ResponsePathStep[]): unknown {
  let current = value;
  for (const step of steps) {
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
