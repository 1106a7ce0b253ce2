// The four functions used, not semver's index (which loads its whole API, 47 modules).
import type { RangeOptions } from 'semver';
import satisfies from 'semver/functions/satisfies.js';
import valid from 'semver/functions/valid.js';
import minVersion from 'semver/ranges/min-version.js';
import subset from 'semver/ranges/subset.js';
import validRangeOf from 'semver/ranges/valid.js';

const PRERELEASES: RangeOptions = { includePrerelease: true };

/** The normalized range, or null when the text is not a semver range. */
export function validRange(text: string): string | null {
  try {
    return validRangeOf(text, PRERELEASES);
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
    const min = minVersion(range, PRERELEASES);
    if (!min) return false;
    const major = min.major;
    return subset(range, `>=${major}.0.0-0 <${major + 1}.0.0-0`, PRERELEASES);
  } catch {
    return false;
  }
}

export function satisfiesRange(version: string, range: string): boolean {
  try {
    return satisfies(version, range, PRERELEASES);
  } catch {
    return false;
  }
}

export function isSemver(text: string): boolean {
  return valid(text) !== null;
}

/** `fax@^1` -> `{ kind: 'fax', range: '^1' }`; null when there is no `kind@range` shape. */
export function splitContract(contract: string): { kind: string; range: string } | null {
  const at = contract.indexOf('@');
  if (at <= 0 || at === contract.length - 1) return null;
  return { kind: contract.slice(0, at).trim(), range: contract.slice(at + 1).trim() };
}
