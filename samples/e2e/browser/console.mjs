// Drives octo app's console in Debian's chromium (headless, through playwright-core; no
// browser download): makes a server, adds a tool through the form, sees it in the YAML, starts
// the server, calls the tool from Try it, sees the call arrive live in the traffic panel,
// edits variables and environments in their form, renames, duplicates, deletes (and undoes)
// and stops servers from the sidebar, allows agents and approves a real agent's save_server (the built binary's `octo mcp`),
// an HTTP API's among them, edited in its Routes form and called, and
// keeps a screenshot of each main page. Prints "ok: …" last; any failure exits 1.
//
// usage: node console.mjs LOGIN_LINK OCTO_BIN DATA_DIR ARTIFACTS_DIR
import { chromium } from 'playwright-core';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';

const [login, octo, dataDir, artifacts] = process.argv.slice(2);
if (!artifacts) {
  console.error('usage: node console.mjs LOGIN_LINK OCTO_BIN DATA_DIR ARTIFACTS_DIR');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });
const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
const STEP = 20_000; // each wait; the whole run is bounded by the Go test

const steps = [];
const t0 = Date.now();
function step(name) {
  steps.push(name);
  console.error(`step (${((Date.now() - t0) / 1000).toFixed(1)} s): ${name}`);
}

const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
let agent = null;
let page = null;
const pageErrors = [];
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  page = await context.newPage();
  page.setDefaultTimeout(STEP);
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // Network failures are judged by status below (the YAML step's 422 is expected).
  page.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) pageErrors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400 && r.status() !== 422) pageErrors.push(`${r.status()} ${r.url()}`); });
  // A form save of a file with comments asks first (the starter's file has some): say yes, and
  // keep what was asked.
  const asked = [];
  page.on('dialog', (d) => { asked.push(d.message()); d.accept(); });
  const shot = (name) => page.screenshot({ path: `${artifacts}/${name}.png`, fullPage: true });

  step('without the login link, the console says how to get in and shows nothing');
  const base = new URL('/', login).href;
  const stranger = await browser.newContext();
  const door = await stranger.newPage();
  const refused = await door.goto(base);
  if (refused.status() !== 401) throw new Error(`the console answered a browser without its cookie ${refused.status()}`);
  await door.getByText('octo app --print-url').first().waitFor();
  await door.screenshot({ path: `${artifacts}/login-needed.png`, fullPage: true });
  await stranger.close();

  step('open the console with the login link');
  await page.goto(login);
  await page.waitForURL(base);
  await page.waitForSelector('body[data-ready="true"]');
  await shot('home');

  step('make a server from the starter, with the keyboard');
  await page.getByRole('button', { name: '+ New server' }).focus();
  await page.keyboard.press('Enter'); // opens the menu and moves focus into it
  await page.getByRole('menuitem', { name: 'MCP server' }).and(page.locator(':focus')).waitFor();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => location.hash.startsWith('#/server/New%20server/tools'));
  await page.getByRole('heading', { name: 'New server', level: 2 }).waitFor();
  await page.getByRole('link', { name: /New server/ }).waitFor(); // in the sidebar

  step('take any free port (3004 may be in use on this machine)');
  await page.getByRole('tab', { name: 'Settings' }).click();
  await page.getByLabel('Port').fill('0');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#notice').getByText(/Saved "New server"/).waitFor();

  step('add a tool through the form');
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.getByRole('button', { name: 'Add tool' }).click();
  const tool = page.locator('fieldset.item').last();
  await tool.getByLabel('Name', { exact: true }).fill('echo_city');
  await tool.getByLabel('Description').fill('Says hello to a city.');
  await tool.getByLabel('Input schema (JSON Schema)').fill('{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}');
  await tool.getByLabel('Result').fill('hello {{args.city}}');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#notice').getByText(/Saved "New server"/).waitFor();
  await shot('server-tools');

  step('see the tool in the YAML');
  await page.getByRole('tab', { name: 'YAML' }).click();
  await page.waitForFunction(() => document.querySelector('#yaml-text')?.value.includes('name: echo_city'));
  await shot('server-yaml');

  step('a broken edit is refused at its line');
  const text = await page.locator('#yaml-text').inputValue();
  await page.locator('#yaml-text').fill(text.replace('kind: mcp', 'kind: mcp\nporrt: 1'));
  await page.locator('#save-yaml').click();
  await page.locator('#yaml-problems').getByRole('button', { name: /^Line \d+$/ }).first().waitFor();
  await page.locator('.gutter .bad').first().waitFor();
  await shot('server-yaml-error');
  await page.getByRole('button', { name: 'Reload from disk' }).click();
  await page.waitForFunction(() => !document.querySelector('#yaml-text').value.includes('porrt'));

  step('an edit from outside appears live');
  const workspace = await page.evaluate(async () => (await (await fetch('/api/state')).json()).workspace);
  appendFileSync(`${workspace}/servers/New server.yaml`, '# edited in another editor\n');
  await page.waitForFunction(() => document.querySelector('#yaml-text').value.includes('# edited in another editor'));

  step('start it');
  await page.locator('#start').click();
  await page.locator('.server-head .state.running').waitFor();

  step('see how clients connect');
  await page.getByRole('tab', { name: 'Clients' }).click();
  await page.getByText('"mcpServers"').first().waitFor();
  await page.getByText('--stdio').first().waitFor();
  await shot('server-clients');

  step('call the tool from Try it');
  await page.getByRole('tab', { name: 'Try it' }).click();
  await page.locator('#try-name').selectOption('echo_city');
  await page.getByLabel('Arguments (JSON)').fill('{"city": "Lisbon"}');
  await page.locator('#try-run').click();
  await page.locator('#try-result', { hasText: 'hello Lisbon' }).waitFor();
  await shot('server-try');

  step('see a call arrive live in the traffic panel');
  await page.getByRole('tab', { name: 'Traffic' }).click();
  const calls = page.locator('#traffic-list li', { hasText: 'tools/call echo_city' });
  await calls.first().waitFor();
  const before = await calls.count();
  await page.evaluate(async () => { // another client of the same API calls while the panel is open
    const r = await fetch('/api/call', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ tool: 'call_server', arguments: { server: 'New server', tool: 'echo_city', arguments: { city: 'Porto' } } }) });
    if (!r.ok) throw new Error('call_server answered ' + r.status);
  });
  await page.waitForFunction((n) => [...document.querySelectorAll('#traffic-list li')]
    .filter((li) => li.textContent.includes('tools/call echo_city')).length > n, before);
  await calls.last().getByRole('button').click();
  await page.locator('#traffic-list pre.json:not([hidden])', { hasText: 'Porto' }).first().waitFor();
  await shot('traffic');

  step('a schema written as a YAML mapping is shown as JSON, and Try it starts from it');
  await page.evaluate(async () => { // as an editor would write it: a mapping, with a default
    const call = async (tool, args) => {
      const r = await fetch('/api/call', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ tool, arguments: args }) });
      const out = await r.json();
      if (!r.ok || out.isError) throw new Error(tool + ': ' + JSON.stringify(out));
      return out;
    };
    const fields = JSON.parse((await call('get_server', { name: 'New server' })).text).fields;
    fields.mcp.tools.push({ name: 'slow_report', result: 'report ready', steps: [
      { progress: 1, total: 2, message: 'collecting' }, { delayMs: 400 }, { progress: 2, total: 2, message: 'writing' }, { delayMs: 400 }] });
    fields.mcp.tools.find((t) => t.name === 'echo_city').inputSchema = { type: 'object', properties: { city: { type: 'string', default: 'Lisbon' }, days: { type: 'integer' } }, required: ['city'] };
    await call('save_server', fields);
    // The running server takes the edit within a second of the file being written.
    for (let i = 0; i < 100; i++) {
      const r = JSON.parse((await call('call_server', { server: 'New server', tool: 'slow_report' })).text);
      if (!r.error) break;
      await new Promise((ok) => setTimeout(ok, 100));
    }
  });
  await page.getByRole('tab', { name: 'YAML' }).click();
  await page.waitForFunction(() => /inputSchema:\s*\n\s+type: object/.test(document.querySelector('#yaml-text')?.value || ''));
  await page.getByRole('tab', { name: 'Tools' }).click();
  const echoForm = page.locator('fieldset.item', { has: page.locator('legend', { hasText: 'echo_city' }) });
  const schemaBox = echoForm.getByLabel('Input schema (JSON Schema)');
  const shown = await schemaBox.inputValue();
  if (shown.includes('[object Object]') || JSON.parse(shown).properties.city.default !== 'Lisbon') throw new Error('the schema shows as ' + shown);
  await page.getByRole('tab', { name: 'Try it' }).click();
  await page.locator('#try-name').selectOption('echo_city');
  const prefilled = JSON.parse(await page.getByLabel('Arguments (JSON)').inputValue());
  if (prefilled.city !== 'Lisbon' || prefilled.days !== 0) throw new Error('Try it starts from ' + JSON.stringify(prefilled));
  await page.locator('#try-run').click();
  await page.locator('#try-result', { hasText: 'hello Lisbon' }).waitFor();

  step('Try it shows a long call\'s progress as it comes');
  await page.locator('#try-name').selectOption('slow_report');
  await page.locator('#try-run').click();
  await page.locator('#try-progress li', { hasText: '1 of 2: collecting' }).waitFor();
  await page.locator('#try-result', { hasText: 'report ready' }).waitFor();
  await page.locator('#try-progress li', { hasText: '2 of 2: writing' }).waitFor();
  if (await page.locator('#try-bar').evaluate((b) => b.hidden || b.value !== 2 || b.max !== 2)) throw new Error('the progress bar is not 2 of 2');
  await shot('server-try-progress');

  step('a form save of a file with comments asks first, and keeps the mapping a mapping');
  await page.getByRole('tab', { name: 'YAML' }).click();
  await page.waitForFunction(() => document.querySelector('#yaml-text')?.value.length > 0);
  appendFileSync(`${workspace}/servers/New server.yaml`, '# a note of mine\n');
  await page.waitForFunction(() => document.querySelector('#yaml-text')?.value.includes('# a note of mine'));
  await page.getByRole('tab', { name: 'Tools' }).click();
  await echoForm.getByLabel('Description').fill('Says hello to a city, by name.');
  const askedBefore = asked.length;
  await page.getByRole('button', { name: 'Save' }).click();
  await page.locator('#notice').getByText(/Saved "New server"/).waitFor();
  if (asked.length !== askedBefore + 1 || !asked[askedBefore].includes('drops its comments')) throw new Error('the form saved without asking: ' + JSON.stringify(asked));
  await page.getByRole('tab', { name: 'YAML' }).click();
  await page.waitForFunction(() => { const v = document.querySelector('#yaml-text')?.value || '';
    return v.includes('by name.') && /inputSchema:\s*\n\s+type: object/.test(v); });

  step('set a workspace variable in the form');
  await page.getByRole('button', { name: 'Variables' }).click();
  await page.getByRole('button', { name: 'Add variable', exact: true }).click();
  await page.getByLabel('Name', { exact: true }).last().fill('city');
  await page.getByLabel('Value', { exact: true }).last().fill('Lisbon');
  await page.locator('#save-variables').click();
  await page.locator('#notice').getByText('Saved the variables.').waitFor();

  step('add an environment, give it a value and switch to it');
  await page.locator('#new-env').fill('staging');
  await page.locator('#add-env').click();
  await page.locator('#notice').getByText('Added the environment staging.').waitFor();
  await page.getByRole('button', { name: 'Add variable to staging' }).click();
  await page.getByLabel('Name of staging').last().fill('city');
  await page.getByLabel('Value of staging').last().fill('Porto');
  await page.locator('#save-variables').click();
  await page.locator('#notice').getByText('Saved the variables.').waitFor();
  await page.locator('#active-env').selectOption('staging');
  await page.locator('#notice').getByText('Active environment: staging.').waitFor();
  await page.getByText('Environment staging (active').waitFor();
  await page.waitForFunction(() => /^environment: staging$/m.test(document.querySelector('#yaml-text').value)); // the same file as YAML
  await shot('variables');

  step('rename a server from the sidebar, with the keyboard');
  const rowMenu = page.getByRole('button', { name: 'Actions for New server' });
  await rowMenu.focus();
  await page.keyboard.press('Enter'); // opens the row's menu on its first item
  await page.getByRole('menuitem', { name: 'Stop' }).and(page.locator(':focus')).waitFor();
  await page.keyboard.press('Escape'); // closes it, back on its button
  await rowMenu.and(page.locator(':focus[aria-expanded="false"]')).waitFor();
  await page.keyboard.press('Enter');
  await page.getByRole('menuitem', { name: 'Stop' }).and(page.locator(':focus')).waitFor();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.getByLabel('New name for New server').and(page.locator(':focus')).waitFor();
  await page.keyboard.type('Echo server');
  await shot('sidebar-rename');
  await page.keyboard.press('Enter');
  await page.locator('#notice').getByText('Renamed "New server" to "Echo server".').waitFor();
  await page.locator('li[data-server="Echo server"] .dot.running').waitFor(); // restarted under its new name

  step('duplicate it, delete the copy from the sidebar and undo');
  await page.getByRole('button', { name: 'Actions for Echo server' }).click();
  await page.getByRole('menuitem', { name: 'Duplicate' }).click();
  await page.getByRole('heading', { name: 'Echo server copy', level: 2 }).waitFor();
  await page.getByRole('button', { name: 'Actions for Echo server copy' }).click();
  await page.getByRole('menuitem', { name: 'Delete' }).click();
  await page.locator('#notice').getByText('Deleted "Echo server copy".').waitFor();
  await page.locator('li[data-server="Echo server copy"]').waitFor({ state: 'detached' });
  await shot('sidebar-undo');
  await page.locator('#undo-delete').click();
  await page.getByRole('heading', { name: 'Echo server copy', level: 2 }).waitFor();
  await page.locator('li[data-server="Echo server copy"]').waitFor();

  step('stop a server from the sidebar');
  await page.getByRole('button', { name: 'Actions for Echo server', exact: true }).click();
  await page.getByRole('menuitem', { name: 'Stop' }).click();
  await page.locator('li[data-server="Echo server"] .dot.stopped').waitFor();

  step('allow AI agents');
  await page.getByRole('button', { name: /^Agents/ }).click();
  await page.getByRole('heading', { name: 'Connect an agent' }).waitFor();
  await page.locator('dl.connect pre', { hasText: `claude mcp add --scope user -e OCTO_DATA_DIR=` }).first().waitFor();
  await page.getByLabel('Allow AI agents').check();
  await page.locator('#notice').getByText('Saved.').waitFor();

  step("an agent's save_server waits for approval");
  agent = spawn(octo, ['mcp', '--data-dir', dataDir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const answers = createInterface({ input: agent.stdout });
  const waiting = new Map();
  answers.on('line', (line) => {
    const msg = JSON.parse(line);
    if (msg.id !== undefined && waiting.has(msg.id)) waiting.get(msg.id)(msg);
  });
  const send = (msg) => agent.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
  const answer = (id) => new Promise((resolve, reject) => {
    waiting.set(id, resolve);
    setTimeout(() => reject(new Error('no answer to request ' + id)), 3 * STEP).unref();
  });
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser-test-agent', version: '1' } } });
  await answer(1);
  send({ method: 'notifications/initialized' });
  const saved = answer(2);
  send({ id: 2, method: 'tools/call', params: { name: 'save_server', arguments: {
    name: 'Agent mock', kind: 'mcp', port: 0, mcp: { tools: [{ name: 'ping', result: 'pong' }] } } } });
  const question = page.locator('#pending-list li', { hasText: 'browser-test-agent' });
  await question.waitFor();
  await question.getByText('save_server "Agent mock"').waitFor();
  await shot('agents');
  await question.getByRole('button', { name: 'Approve' }).click();
  const result = await saved;
  const said = JSON.stringify(result);
  if (!said.includes('Saved') || said.includes('"isError":true')) throw new Error('save_server answered ' + said);
  await page.locator('table.history', { hasText: 'approved (console)' }).waitFor();
  await page.getByRole('link', { name: /Agent mock/ }).waitFor(); // the sidebar follows
  await shot('agents-history');

  step('an agent saves an HTTP API; its page has routes, a form save keeps its kind, and it serves');
  const savedAPI = answer(3);
  send({ id: 3, method: 'tools/call', params: { name: 'save_server', arguments: {
    name: 'Billing API', kind: 'http', port: 0, http: { routes: [{ method: 'GET', path: '/invoices/{id}', body: '{"id": "{{params.id}}"}' }] } } } });
  const apiQuestion = page.locator('#pending-list li', { hasText: 'save_server "Billing API"' });
  await apiQuestion.waitFor();
  await apiQuestion.getByRole('button', { name: 'Approve' }).click();
  const apiSaid = JSON.stringify(await savedAPI);
  if (!apiSaid.includes('Saved') || apiSaid.includes('"isError":true')) throw new Error('save_server (http) answered ' + apiSaid);
  await page.locator('li[data-server="Billing API"] .kind-tag', { hasText: 'HTTP' }).waitFor();
  await page.getByRole('link', { name: /Billing API/ }).click();
  await page.getByRole('heading', { name: 'Billing API', level: 2 }).waitFor();
  await page.getByRole('tab', { name: 'Routes' }).waitFor();
  if (await page.getByRole('tab', { name: 'Tools' }).count() !== 0) throw new Error('an HTTP API shows a Tools tab');
  await page.getByRole('tab', { name: 'Routes' }).click();
  // Clicking the tab renders the page again once its file is read: an edit typed into the page
  // it replaces is gone with it, as a person never types that fast. So: edit, save, and look at
  // the file; again if the edit went into the page that was replaced.
  const yamlURL = new URL(page.url()).origin + '/api/yaml?name=' + encodeURIComponent('Billing API');
  const edited = async () => (await (await page.request.get(yamlURL)).text()).includes('paid');
  for (let attempt = 0; attempt < 3 && !(await edited()); attempt++) {
    const route = page.locator('fieldset.item', { hasText: 'GET /invoices/{id}' });
    await route.getByLabel('Body').fill('{"id": "{{params.id}}", "paid": true}');
    if (attempt === 0) await shot('server-routes');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#notice').getByText(/Saved .*Billing API/).waitFor();
    for (let i = 0; i < 20 && !(await edited()); i++) await page.waitForTimeout(100);
  }
  await page.locator('#start').click();
  const apiURL = (await page.locator('header .url').textContent()).trim();
  // A running server takes the saved file as an edit in place, a moment after the save: ask
  // until it answers with the new body.
  let got, body;
  for (let i = 0; i < 50; i++) {
    got = await page.request.get(apiURL.replace(/\/$/, '') + '/invoices/7');
    body = await got.text();
    if (got.status() === 200 && body === '{"id": "7", "paid": true}') break;
    await page.waitForTimeout(100);
  }
  if (got.status() !== 200 || body !== '{"id": "7", "paid": true}') {
    throw new Error(`GET /invoices/7 answered ${got.status()} ${body}; the file: ${await (await page.request.get(yamlURL)).text()}`);
  }
  await page.getByRole('tab', { name: 'Traffic' }).click();
  await page.locator('.summary', { hasText: '200 for GET /invoices/7' }).first().waitFor();

  if (pageErrors.length) throw new Error('the page logged errors:\n' + pageErrors.join('\n'));
  console.log(`ok: ${steps.length} steps in chromium`);
} catch (e) {
  console.error(`failed at step "${steps[steps.length - 1]}": ${e.stack || e}`);
  if (pageErrors.length) console.error('the page logged errors:\n' + pageErrors.join('\n'));
  if (page) await page.screenshot({ path: `${artifacts}/failed.png`, fullPage: true }).catch(() => {});
  process.exitCode = 1;
} finally {
  if (agent) agent.stdin.end();
  await browser.close();
}
