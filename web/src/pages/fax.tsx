import { Stub } from '../components.js';
import type { Route } from '../router.js';
export function FaxPage(_: { route: Route }) {
  return <Stub what={['Send a fax', 'Jobs', 'Inbound faxes']} />;
}
