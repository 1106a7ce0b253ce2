// Hash routing (#/fax/jobs/42): the console's paths never collide with the API's, and a reload
// of any page asks the gateway only for `/`.
import { useEffect, useState } from 'preact/hooks';

export interface Route {
  /** Path segments after `#/`, e.g. ['fax', 'jobs', '42']. */
  parts: string[];
  query: URLSearchParams;
}

export function currentRoute(): Route {
  const raw = location.hash.replace(/^#\/?/, '');
  const [path = '', search = ''] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(search) };
}

export function href(path: string, query?: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v) params.set(k, v);
  const s = params.toString();
  return `#/${path.replace(/^\//, '')}${s ? `?${s}` : ''}`;
}

export function navigate(path: string, query?: Record<string, string | undefined>): void {
  location.hash = href(path, query);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const update = () => setRoute(currentRoute());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
