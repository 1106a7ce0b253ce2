import semver from 'semver';

const PRERELEASES: semver.RangeOptions = { includePrerelease: true };

/** The normalized range, or null when the text is not a semver range. */
export function validRange(text: string): string | null {
  try {
    return semver.validRange(text, PRERELEASES);
  } catch {
    return null;
  }
}

/**
 * True when every version satisfying the range shares one major: `^1`, `~1.2`, `>=1.2 <2`,
 * `^0.3`, but not `*`, `>=1` or `1 || 2`. Prereleases count, so `<2.0.0-0` pins and `<=2.0.0` does not.
 */
export function pinsMajor(range: string): boolean {
  try {
    const min = semver.minVersion(range, PRERELEASES);
    if (!min) return false;
    const major = min.major;
    return semver.subset(range, `>=${major}.0.0-0 <${major + 1}.0.0-0`, PRERELEASES);
  } catch {
    return false;
  }
}

export function satisfiesRange(version: string, range: string): boolean {
  try {
    return semver.satisfies(version, range, PRERELEASES);
  } catch {
    return false;
  }
}

export function isSemver(text: string): boolean {
  return semver.valid(text) !== null;
}

/** `fax@^1` -> `{ kind: 'fax', range: '^1' }`; null when there is no `kind@range` shape. */
export function splitContract(contract: string): { kind: string; range: string } | null {
  const at = contract.indexOf('@');
  if (at <= 0 || at === contract.length - 1) return null;
  return { kind: contract.slice(0, at).trim(), range: contract.slice(at + 1).trim() };
}
