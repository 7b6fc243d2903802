import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Drives the code-server workbench with Debian's chromium. The extension host only starts once a workbench
 * connects, so a browser is what launches the tests. The workbench reports the test host's log lines and its exit
 * code through two functions it looks up on `window`: `codeAutomationLog(level, message)` and
 * `codeAutomationExit(code, logs)`.
 */
export const CHROMIUM_PATH = process.env.K0_CHROMIUM ?? '/usr/bin/chromium';

const CHROMIUM_FLAGS = [
  '--no-sandbox', // CI runs as root
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface ExtensionTestRun {
  /** The origin of a running code-server, e.g. http://127.0.0.1:PORT */
  origin: string;
  /** Folder to open as the workspace (absolute path on this machine). */
  workspace: string;
  /** The extension's root folder (the one holding package.json). */
  extensionPath: string;
  /** The bundled test entry that exports `run()`. */
  testsPath: string;
  timeoutMs?: number;
  /** Where to save a screenshot when the run fails or times out. */
  screenshotOnFailure?: string;
  onLog?: (level: string, message: string) => void;
  /**
   * Drives the workbench like a user while the in-host tests run (console.runner.ts). Started once the workbench
   * page loaded; its failure is reported in the result (the in-host side decides how long to wait for it).
   */
  drive?: (page: Page) => Promise<void>;
}

/**
 * Collects every distinct text the workbench's status bar items show during the run, so the runner can check what
 * a person would see (the host-side API only says what the extension asked for). Codicons render as empty spans,
 * so `$(database) K0maru: 3 notes` reads as `K0maru: 3 notes`.
 */
const STATUS_BAR_WATCH = `
  window.addEventListener('DOMContentLoaded', () => {
    const seen = new Set();
    let queued = false;
    const collect = () => {
      queued = false;
      for (const el of document.querySelectorAll('.statusbar-item')) {
        const text = (el.textContent || '').replace(/\\s+/g, ' ').trim();
        if (text && !seen.has(text)) { seen.add(text); window.k0StatusBarText(text); }
      }
    };
    new MutationObserver(() => { if (!queued) { queued = true; setTimeout(collect, 50); } })
      .observe(document.body, { subtree: true, childList: true, characterData: true });
  });
`;

export interface ExtensionTestResult {
  exitCode: number;
  /** 'exit' when the workbench reported an exit code, 'timeout' when it never did. */
  ended: 'exit' | 'timeout';
  log: string[];
  /** Distinct status bar texts seen while the tests ran, in order of appearance. */
  statusBarTexts: string[];
  screenshot?: string;
  durationMs: number;
  /** Why `drive` failed, when it did. */
  driveError?: Error;
}

/** The workbench URL that opens `workspace` in extension-development mode with the given test entry. */
export function workbenchUrl(run: Pick<ExtensionTestRun, 'origin' | 'workspace' | 'extensionPath' | 'testsPath'>): string {
  const remote = `vscode-remote://${new URL(run.origin).host}`;
  const payload = [
    ['extensionDevelopmentPath', remote + run.extensionPath],
    ['extensionTestsPath', remote + run.testsPath],
  ];
  return `${run.origin}/?folder=${encodeURIComponent(run.workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

export async function runExtensionTests(run: ExtensionTestRun): Promise<ExtensionTestResult> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`chromium not found at ${CHROMIUM_PATH}: install the Debian package (apt-get install chromium)`);
  }
  const t0 = Date.now();
  const log: string[] = [];
  const statusBarTexts: string[] = [];
  const browser: Browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const exit = new Promise<number>((resolve) => {
      void page.exposeFunction('codeAutomationExit', (code: number) => resolve(Number(code)));
    });
    await page.exposeFunction('codeAutomationLog', (level: string, message: string) => {
      log.push(`[${level}] ${message}`);
      run.onLog?.(level, message);
    });
    await page.exposeFunction('k0StatusBarText', (text: string) => statusBarTexts.push(text));
    await page.addInitScript(STATUS_BAR_WATCH);
    // Page errors say why a workbench never reached the extension host.
    page.on('pageerror', (err) => log.push(`[pageerror] ${err.message}`));

    const timeoutMs = run.timeoutMs ?? 180_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => (timer = setTimeout(() => r('timeout'), timeoutMs)));
    await page.goto(workbenchUrl(run), { waitUntil: 'domcontentloaded' });
    let driveError: Error | undefined;
    const driving = run.drive?.(page).catch((err: unknown) => {
      driveError = err instanceof Error ? err : new Error(String(err));
    });
    const outcome = await Promise.race([exit, timeout]);
    clearTimeout(timer);
    // The in-host side waits for the driver; once it exited, a driver still running has nothing left to drive.
    await Promise.race([driving, new Promise((r) => setTimeout(r, 2_000))]);

    const result: ExtensionTestResult = outcome === 'timeout'
      ? { exitCode: -1, ended: 'timeout', log, statusBarTexts, durationMs: Date.now() - t0 }
      : { exitCode: outcome, ended: 'exit', log, statusBarTexts, durationMs: Date.now() - t0 };
    if (driveError) result.driveError = driveError;
    if (result.exitCode !== 0 && run.screenshotOnFailure) result.screenshot = await screenshot(page, run.screenshotOnFailure);
    return result;
  } finally {
    await browser.close();
  }
}

async function screenshot(page: Page, path: string): Promise<string | undefined> {
  try {
    mkdirSync(dirname(path), { recursive: true });
    await page.screenshot({ path, fullPage: true });
    return path;
  } catch {
    return undefined; // the page may already be gone; the log still tells the story
  }
}
