import type { ComponentChildren } from 'preact';
import { href } from '../router.js';
import { KeyForm } from './key-form.js';

export interface NavItem {
  path: string;
  label: string;
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
