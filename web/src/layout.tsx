import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { apiKey, setApiKey } from './api.js';
import { href } from './router.js';

export interface NavItem {
  path: string;
  label: string;
}

/** The session's API key: typed once, kept in sessionStorage, sent only as the X-API-Key header. */
function KeyForm() {
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

export function Layout({ nav, active, title, children, headingRef }: { nav: NavItem[]; active: string; title: string; children: ComponentChildren; headingRef: { current: HTMLHeadingElement | null } }) {
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Switchboard</span>
        <KeyForm />
      </header>
      <div class="frame">
        <nav aria-label="Console">
          <ul>
            {nav.map((n) => (
              <li key={n.path}>
                <a href={href(n.path)} aria-current={n.path === active ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          <h1 tabIndex={-1} ref={headingRef}>
            {title}
          </h1>
          {children}
        </main>
      </div>
    </>
  );
}
