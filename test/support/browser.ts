// Real-browser support for the console tests: Debian's chromium driven by playwright-core (no
// browser download), a fresh profile per launch, axe-core for accessibility, screenshots (for the
// docs when asked). The page keeps the gateway's Content-Security-Policy (no bypass): a violation fails.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './gateway.js';

export const CHROMIUM = '/usr/bin/chromium';
// Without the background-networking flags Chromium dials out, and this machine refuses it.
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Builds web/dist when missing or stale (the same check as `npm start`). */
export function ensureConsoleBuilt(): void {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'host/bin/build-web.mjs')], { encoding: 'utf8' });
  if (r.status !== 0 || !existsSync(path.join(ROOT, 'web/dist/index.html'))) throw new Error(`console build failed: ${r.stderr}`);
}

export interface ConsoleBrowser {
  context: BrowserContext;
  page: Page;
  /** The browser process, killed at close if it outlived the context. */
  pid: number | undefined;
  /** Script errors and CSP violations seen so far: a test asserts it stays empty. */
  problems: string[];
  close(): Promise<void>;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function openBrowser(options: { viewport?: { width: number; height: number } } = {}): Promise<ConsoleBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const profile = mkdtempSync(path.join(tmpdir(), 'switchboard-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: options.viewport ?? { width: 1280, height: 860 },
    acceptDownloads: true,
    reducedMotion: 'reduce',
  });
  // Chromium names its process in the profile's lock: "<host>-<pid>".
  let pid: number | undefined;
  try {
    pid = Number(readlinkSync(path.join(profile, 'SingletonLock')).split('-').pop());
  } catch {
    pid = undefined;
  }
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10_000);
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error' && /Content Security Policy|Refused to/i.test(msg.text())) problems.push(`csp: ${msg.text()}`);
  });
  return {
    context,
    page,
    pid,
    problems,
    async close() {
      await context.close().catch(() => {});
      if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core on the page as it is and fails on serious or critical violations. axe is
 * evaluated through the DevTools protocol, which the page's CSP does not govern, so the CSP
 * stays in force for the console's own code.
 */
export async function checkAccessibility(page: Page, label: string): Promise<void> {
  const hasAxe = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe !== 'undefined');
  if (!hasAxe) await page.evaluate(readFileSync(path.join(ROOT, 'node_modules/axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (bad.length) throw new Error(`${label}: accessibility violations:\n${bad.map((v) => `  ${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`).join('\n')}`);
}

/**
 * Where screenshots go: docs/console/ (shown in the README and docs/console.md) only with
 * CONSOLE_SCREENSHOTS=docs, so an ordinary test run leaves the checkout as it was; otherwise a
 * temporary directory of this test process, removed when it exits.
 */
function screenshotDir(): string {
  const wanted = process.env.CONSOLE_SCREENSHOTS;
  if (wanted === 'docs') return path.join(ROOT, 'docs/console');
  if (wanted) throw new Error(`CONSOLE_SCREENSHOTS=${wanted}: the only value is "docs" (unset: a temporary directory)`);
  if (!scratch) {
    const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-screenshots-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    scratch = dir;
  }
  return scratch;
}
let scratch: string | undefined;

export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = screenshotDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true, animations: 'disabled', caret: 'hide' });
  return file;
}
