// The headless sign-in as a program (`node headless-browser.ts <authorization URL>`): the BROWSER
// that mcp-remote opens through xdg-open in the tests. It signs in as $HEADLESS_BROWSER_USERNAME /
// $HEADLESS_BROWSER_PASSWORD, allows the client, delivers the code to the client's callback as a
// browser would, and appends one JSON line to $HEADLESS_BROWSER_REPORT saying how it went (never
// the code). It exits 0 whatever the outcome, as a browser that opened a page does; otherwise
// xdg-open and mcp-remote would try their other browsers.
import { appendFile } from 'node:fs/promises';
import { signIn } from './headless-sign-in.ts';

async function main(url: string | undefined): Promise<void> {
  const { HEADLESS_BROWSER_USERNAME: username, HEADLESS_BROWSER_PASSWORD: password, HEADLESS_BROWSER_REPORT: report } = process.env;
  let line: Record<string, unknown>;
  try {
    if (!url || !username || !password) throw new Error('usage: HEADLESS_BROWSER_USERNAME=… HEADLESS_BROWSER_PASSWORD=… headless-browser.ts <url>');
    const outcome = await signIn(url, { username, password }, { deliver: true });
    line = outcome.kind === 'redirected' ? { kind: outcome.kind, callbackStatus: outcome.callbackStatus, consentShown: outcome.consentShown } : outcome;
  } catch (error) {
    line = { kind: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
  if (report) await appendFile(report, `${JSON.stringify(line)}\n`);
}

if (import.meta.main) await main(process.argv[2]);
