/** Path variables of a route: `{ id: 'a b' }` for `/fax/{id}` or `/fax/:id`. */
export type PathParams = Record<string, string | number | boolean>;

/** Query values: undefined and null are left out, an array repeats its name, an object is sent as JSON. */
export type QueryParams = Record<string, unknown>;

// `{name}` (OpenAPI) or `:name` (express), as route declarations write them.
const VARIABLE = /\{([A-Za-z_][A-Za-z0-9_]*)\}|:([A-Za-z_][A-Za-z0-9_]*)/g;

/** `/fax/{id}` with `{ id: 'a/b' }` is `/fax/a%2Fb`. A variable without a value is a programming error: it throws. */
export function fillPath(template: string, params: PathParams = {}): string {
  return template.replace(VARIABLE, (_match, braced: string | undefined, colon: string | undefined) => {
    const name = (braced ?? colon)!;
    const value = params[name];
    if (value === undefined) throw new TypeError(`path ${template} needs a value for "${name}"`);
    return encodeURIComponent(String(value));
  });
}

/** `?a=1&b=x` (or '' when nothing is left). */
export function queryString(query: QueryParams = {}): string {
  const search = new URLSearchParams();
  const add = (name: string, value: unknown) => {
    if (value === undefined || value === null) return;
    search.append(name, typeof value === 'object' ? JSON.stringify(value) : String(value));
  };
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) for (const item of value) add(name, item);
    else add(name, value);
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
