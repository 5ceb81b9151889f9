// Calls MCP servers from a page on another origin in Debian's chromium (headless, through
// playwright-core), as a browser-based 2026-07-28 client does: each call is a fetch with the
// headers the revision adds (Mcp-Method, Mcp-Name, the Mcp-Param headers of mirrored
// arguments), which the browser sends only after a preflight that allows them. Prints one JSON
// line per call, {"url", "status", "body"} or {"url", "error"}, then "ok".
//
// usage: node cors.mjs PAGE_URL CALLS_JSON   (CALLS_JSON: [{"url", "headers", "body"}])
import { chromium } from 'playwright-core';

const [pageURL, callsJSON] = process.argv.slice(2);
if (!callsJSON) {
  console.error('usage: node cors.mjs PAGE_URL CALLS_JSON');
  process.exit(2);
}
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(pageURL);
  for (const call of JSON.parse(callsJSON)) {
    const got = await page.evaluate(async ({ url, headers, body }) => {
      try {
        const resp = await fetch(url, { method: 'POST', headers, body });
        return { url, status: resp.status, body: await resp.text() };
      } catch (e) {
        return { url, error: String(e) };
      }
    }, call);
    console.log(JSON.stringify(got));
  }
  console.log('ok');
} finally {
  await browser.close();
}
