import { useEffect, useState } from 'preact/hooks';
import { apiKey, onKeyNeeded, setApiKey } from '../api.js';

/**
 * The session's API key: typed once, kept in sessionStorage, sent only as the X-API-Key header.
 * A 401 on any page opens it, saying where keys come from.
 */
export function KeyForm() {
  const saved = apiKey() !== '';
  const [value, setValue] = useState('');
  const [open, setOpen] = useState(false);
  const [refused, setRefused] = useState(false);
  useEffect(() => onKeyNeeded(() => (setRefused(true), setOpen(true))), []);
  if (!open)
    return (
      <button type="button" class="quiet" aria-expanded="false" onClick={() => setOpen(true)}>
        API key: {saved ? 'set' : 'none'}
      </button>
    );
  const use = (key: string) => {
    setApiKey(key);
    location.reload();
  };
  return (
    <form
      class="keyform"
      aria-describedby="api-key-help"
      onSubmit={(e) => {
        e.preventDefault();
        if (value.trim()) use(value.trim());
      }}
    >
      <p id="api-key-help" class="hint" role={refused ? 'alert' : undefined}>
        {refused ? (saved ? 'The gateway refused this session\'s key (401). ' : 'The gateway needs an API key (401). ') : ''}
        Keys come from <code>switchboard keys mint &lt;name&gt; --scopes admin</code> on the gateway's machine (the token is printed once), from Keys &amp; settings with an admin key, or the
        gateway's <code>API_KEY</code> setting.
      </p>
      <label for="api-key">API key for this session</label>
      <input id="api-key" type="password" autoComplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
      <button type="submit" disabled={!value.trim()}>
        Use this key
      </button>
      {saved && (
        <button type="button" class="quiet" onClick={() => use('')}>
          Forget the saved key
        </button>
      )}
      <button type="button" class="quiet" onClick={() => (setOpen(false), setRefused(false))}>
        Close
      </button>
    </form>
  );
}
