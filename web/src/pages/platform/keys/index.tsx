import { apiKey } from '../../../api.js';
import { AuditLog } from './audit-log.js';
import { EffectiveSettings } from './effective-settings.js';
import { KeyList } from './key-list.js';

export function KeysPage() {
  return (
    <>
      {!apiKey() && <p class="note">This session has no API key: requests go without one (allowed from this machine until a key exists).</p>}
      <KeyList />
      <EffectiveSettings />
      <AuditLog />
    </>
  );
}
