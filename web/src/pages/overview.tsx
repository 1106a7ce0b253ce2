import { Stub } from '../components.js';
export function OverviewPage() {
  return <Stub what={['Readiness', 'Health status', 'Fax jobs over 24 h', 'Alerts firing']} />;
}
