/**
 * A light suffix stripper for matching query terms to document terms in JS, where a store's own
 * stemmer (FTS5's porter) is out of reach: `coalesced`, `coalescing`, `coalesce` all give `coalesc`.
 */
export function stem(term: string): string {
  if (term.length <= 3) return term;
  let t = term;
  if (t.endsWith('sses')) t = t.slice(0, -2);
  else if (t.endsWith('ies') && t.length > 4) return t.slice(0, -3) + 'y';
  else if (t.endsWith('ing') && t.length > 5) t = t.slice(0, -3);
  else if (t.endsWith('ed') && t.length > 4) t = t.slice(0, -2);
  else if (/(?:[sxz]|ch|sh)es$/.test(t)) t = t.slice(0, -2);
  else if (t.endsWith('s') && !t.endsWith('ss')) t = t.slice(0, -1);
  if (t.endsWith('e') && t.length > 3) t = t.slice(0, -1);
  return t;
}
