// The console's shell: the servers sidebar, the pages, and the live stream that keeps them
// current (a server file edited elsewhere, an agent waiting for an answer).
import { api, events } from './api.js';
import { h, replace, notice } from './dom.js';
import { serverPage } from './server.js';
import { trafficPage } from './traffic.js';
import { agentsPage, pendingBanner } from './agents.js';
import { workspacePage } from './workspace.js';
import { renderSidebar, closeOnClickOutside } from './sidebar.js';

export const app = {
  state: null,
  page: null, // the page shown: { refresh(kind), close() }
  async refresh() {
    app.state = await api('GET', '/api/state');
    renderSidebar(app);
    pendingBanner(app);
  },
  go(hash) {
    if (location.hash === hash) route();
    else location.hash = hash;
  },
};

function serverHash(name, tab = 'tools') {
  return '#/server/' + encodeURIComponent(name) + '/' + tab;
}
app.serverHash = serverHash;

// route shows the page the address names.
async function route() {
  if (app.page && app.page.close) app.page.close();
  const page = document.getElementById('page');
  const hash = location.hash || '#/traffic';
  const m = hash.match(/^#\/server\/([^/]*)(?:\/(\w+))?/);
  if (m) app.page = serverPage(app, page, decodeURIComponent(m[1]), m[2] || 'tools');
  else if (hash.startsWith('#/agents')) app.page = agentsPage(app, page);
  else if (hash.startsWith('#/workspace')) app.page = workspacePage(app, page);
  else app.page = trafficPage(app, page, {});
  renderSidebar(app);
}

function setupNewServer() {
  const button = document.getElementById('new-server');
  const menu = document.getElementById('new-menu');
  const toggle = (open) => {
    menu.hidden = !open;
    button.setAttribute('aria-expanded', String(open));
    if (open) menu.querySelector('button').focus();
  };
  button.addEventListener('click', () => toggle(menu.hidden));
  menu.addEventListener('keydown', (e) => { if (e.key === 'Escape') { toggle(false); button.focus(); } });
  // A click elsewhere closes the menu (not focus leaving it: Safari does not focus a clicked
  // button, so its click would find the menu closed).
  document.addEventListener('click', (e) => { if (!menu.hidden && !menu.contains(e.target) && e.target !== button) toggle(false); });
  document.getElementById('new-mcp').addEventListener('click', async () => {
    toggle(false);
    try {
      const made = await api('POST', '/api/new', {});
      await app.refresh();
      notice('Made "' + made.name + '" (' + made.file + ').');
      app.go(serverHash(made.name));
    } catch (e) {
      notice(e.message, 'error');
    }
  });
}

// live keeps the shell current; the pages get the same kinds of change.
function live() {
  const es = events();
  let again = null;
  const changed = (kind) => async () => {
    await app.refresh().catch(() => {});
    if (app.page && app.page.refresh) app.page.refresh(kind);
  };
  es.addEventListener('workspace', changed('workspace'));
  es.addEventListener('agents', changed('agents'));
  es.addEventListener('hello', () => document.body.classList.remove('offline'));
  es.onerror = () => {
    document.body.classList.add('offline');
    if (es.readyState === EventSource.CLOSED && !again) again = setTimeout(() => { again = null; live(); }, 2000);
  };
}

async function start() {
  for (const b of document.querySelectorAll('.page-link')) b.addEventListener('click', () => app.go('#/' + b.dataset.page));
  setupNewServer();
  closeOnClickOutside(app);
  window.addEventListener('hashchange', route);
  try {
    await app.refresh();
  } catch (e) {
    replace(document.getElementById('page'), h('p', { class: 'error' }, 'The console cannot reach octo app: ' + e.message));
    return;
  }
  live();
  await route();
  document.body.dataset.ready = 'true';
}

start();
