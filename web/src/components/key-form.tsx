import { useState } from 'preact/hooks';
import { apiKey, setApiKey } from '../api.js';

/** The session's API key: typed once, kept in sessionStorage, sent only as the X-API-Key header. */
export function KeyForm() {
  const [saved, setSaved] = useState(apiKey() !== '');
  const [value, setValue] = useState('');
  const [open, setOpen] = useState(false);
  if (!open)
    return (
      <button type="button" class="quiet" aria-expanded="false" onClick={() => setOpen(true)}>
        API key: {saved ? 'set' : 'none'}
      </button>
    );
  return (
    <form
      class="keyform"
      onSubmit={(e) => {
        e.preventDefault();
        setApiKey(value.trim());
        setSaved(value.trim() !== '');
        setValue('');
        setOpen(false);
        location.reload();
      }}
    >
      <label for="api-key">API key for this session</label>
      <input id="api-key" type="password" autoComplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      <button type="submit">{value.trim() ? 'Use key' : 'Clear key'}</button>
      <button type="button" class="quiet" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}
