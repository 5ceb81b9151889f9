// A server's page: its state and actions, and tabs for its tools, resources, prompts and
// settings (forms), its file (YAML), how clients connect, Try it, and its traffic; an HTTP API's
// has its routes and settings, its file and its traffic.
import { api, tool } from './api.js';
import { startStop, rename, duplicate, remove } from './actions.js';
import { h, replace, notice, copyButton } from './dom.js';
import { field, list, toolSpec, resourceSpec, promptSpec, settingsFields, routeSpec, httpSettingsFields } from './forms.js';
import { yamlEditor } from './yaml.js';
import { trafficPage } from './traffic.js';
import { tryIt } from './tryit.js';

const mcpTabs = [['tools', 'Tools'], ['resources', 'Resources'], ['prompts', 'Prompts'], ['settings', 'Settings'],
  ['yaml', 'YAML'], ['clients', 'Clients'], ['try', 'Try it'], ['traffic', 'Traffic']];
// An HTTP API (kind http) has routes where an MCP server has tools, and no MCP clients.
const httpTabs = [['routes', 'Routes'], ['settings', 'Settings'], ['yaml', 'YAML'], ['traffic', 'Traffic']];

export function serverPage(app, root, name, tab) {
  const page = { name, tab, dirty: false, server: null, sub: null };
  const header = h('header', { class: 'server-head' });
  const panel = h('div', { class: 'panel', role: 'tabpanel', id: 'server-panel', tabindex: '-1' });
  const tablist = h('div', { class: 'tabs', role: 'tablist', 'aria-label': 'Server sections', onkeydown: arrowKeys });
  replace(root, header, tablist, panel);

  async function fetchServer() {
    const r = await tool('get_server', { name });
    return JSON.parse(r.text);
  }

  async function load() { apply(await fetchServer()); }

  function apply(server) {
    page.server = server;
    page.fields = page.server.fields ? structuredClone(page.server.fields) : null;
    page.dirty = false;
    page.http = (page.fields && page.fields.kind === 'http') || page.server.kind === 'http';
    const own = tabsOf();
    if (!own.some(([id]) => id === tab)) tab = own[0][0]; // a link to another kind's tab
  }

  function tabsOf() { return page.http ? httpTabs : mcpTabs; }

  function renderHeader() {
    const s = page.server;
    const state = s.problem ? 'Problem' : s.running ? 'Running' : 'Stopped';
    const renameBox = h('form', { class: 'inline', hidden: true, onsubmit: (e) => {
      e.preventDefault();
      rename(app, name, renameBox.querySelector('input').value.trim());
    } }, h('label', { for: 'rename-to' }, 'New name'), h('input', { id: 'rename-to', value: name }),
    h('button', { type: 'submit' }, 'Rename'), h('button', { type: 'button', onclick: () => { renameBox.hidden = true; } }, 'Cancel'));
    replace(header,
      h('h2', {}, name),
      h('p', { class: 'state ' + state.toLowerCase() }, h('span', { class: 'dot ' + state.toLowerCase(), 'aria-hidden': 'true' }),
        state, s.running ? h('code', { class: 'url' }, s.url) : null),
      s.problem ? h('pre', { class: 'problem', role: 'alert' }, s.problem) : null,
      h('div', { class: 'actions' },
        s.running ? h('button', { type: 'button', id: 'stop', onclick: () => startStop(app, name, true) }, 'Stop')
          : h('button', { type: 'button', id: 'start', class: 'primary', onclick: () => startStop(app, name, false) }, 'Start'),
        h('button', { type: 'button', onclick: () => { renameBox.hidden = false; renameBox.querySelector('input').select(); } }, 'Rename'),
        h('button', { type: 'button', onclick: () => duplicate(app, name) }, 'Duplicate'),
        h('button', { type: 'button', class: 'danger', onclick: () => remove(app, name) }, 'Delete')),
      renameBox);
  }

  function renderTabs() {
    replace(tablist, tabsOf().map(([id, label]) => h('a', { role: 'tab', href: app.serverHash(name, id), id: 'tab-' + id,
      'aria-selected': String(id === tab), 'aria-controls': 'server-panel', tabindex: id === tab ? '0' : '-1' }, label)));
  }

  function arrowKeys(e) {
    const all = [...tablist.querySelectorAll('[role=tab]')];
    const i = all.indexOf(document.activeElement);
    if (i < 0 || (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft')) return;
    const next = all[(i + (e.key === 'ArrowRight' ? 1 : all.length - 1)) % all.length];
    next.focus();
    next.click();
  }

  function changed() { page.dirty = true; }

  async function save() {
    // The form writes the whole file from its fields: what only the text holds (comments, a
    // layout of one's own) would go. Say so first, and point at the YAML tab, which keeps it.
    try {
      const file = await api('GET', '/api/yaml?name=' + encodeURIComponent(name));
      if (hasComments(file && file.yaml) && !window.confirm('Saving from the form rewrites servers/' + name +
        '.yaml from its fields and drops its comments. Save anyway? (Edit it in the YAML tab to keep them.)')) return;
    } catch { /* a file that cannot be read is saved as the form says */ }
    try {
      const r = await tool('save_server', page.fields);
      page.dirty = false;
      notice(r.text.split('\n')[0]);
      await reload();
    } catch (e) {
      replace(panel.querySelector('.form-errors'), h('pre', { role: 'alert' }, e.message));
    }
  }

  function form(...content) {
    if (!page.fields) return h('p', { class: 'error' }, 'The file cannot be read as fields; fix it in the YAML tab.');
    return h('form', { class: 'server-form', onsubmit: (e) => { e.preventDefault(); save(); } },
      ...content, h('div', { class: 'form-errors' }),
      h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary' }, 'Save')));
  }

  function renderPanel() {
    if (page.sub && page.sub.close) page.sub.close();
    page.sub = null;
    if (page.http) {
      const api = page.fields ? (page.fields.http = page.fields.http || {}) : null;
      switch (tab) {
        case 'routes': replace(panel, form(api && list(api, 'routes', routeSpec, changed))); break;
        case 'settings':
          replace(panel, form(page.fields && field(page.fields, { key: 'port', label: 'Port', type: 'number', hint: 'On 127.0.0.1; 0 takes any free port.' }, changed),
            ...(api ? httpSettingsFields.map((f) => field(api, f, changed)) : [])));
          break;
        case 'yaml': page.sub = yamlEditor(app, panel, page, reload); break;
        case 'traffic': page.sub = trafficPage(app, panel, { server: name }); break;
      }
      return;
    }
    const mcp = page.fields ? (page.fields.mcp = page.fields.mcp || {}) : null;
    switch (tab) {
      case 'tools': replace(panel, form(mcp && list(mcp, 'tools', toolSpec, changed))); break;
      case 'resources': replace(panel, form(mcp && list(mcp, 'resources', resourceSpec, changed))); break;
      case 'prompts': replace(panel, form(mcp && list(mcp, 'prompts', promptSpec, changed))); break;
      case 'settings':
        replace(panel, form(page.fields && field(page.fields, { key: 'port', label: 'Port', type: 'number', hint: 'On 127.0.0.1; 0 takes any free port.' }, changed),
          ...(mcp ? settingsFields.map((f) => field(mcp, f, changed)) : [])));
        break;
      case 'yaml': page.sub = yamlEditor(app, panel, page, reload); break;
      case 'clients': replace(panel, clients(app, page.server, page.fields)); break;
      case 'try': page.sub = tryIt(app, panel, page.server, page.fields, reload); break;
      case 'traffic': page.sub = trafficPage(app, panel, { server: name }); break;
    }
  }

  async function reload() {
    try {
      await load();
    } catch (e) {
      replace(header, h('h2', {}, name));
      replace(panel, h('p', { class: 'error', role: 'alert' }, e.message));
      return;
    }
    renderHeader();
    renderTabs();
    renderPanel();
  }

  reload();
  // A change in the workspace (this server's file or state, from here or elsewhere) updates
  // the header; forms follow unless they hold unsaved edits; the YAML tab decides for itself;
  // Try it follows only when the server started or stopped; the traffic panel is live anyway.
  page.refresh = async (kind) => {
    if (kind !== 'workspace') return;
    if (page.dirty) {
      notice('The file changed outside the console; save or reload to see it.', 'warn');
      return;
    }
    const wasRunning = page.server && page.server.running;
    let fresh;
    try { fresh = await fetchServer(); } catch { return; } // deleted or renamed: the sidebar shows it
    if (page.dirty) { // an edit began while the file was read: it stays, the state is shown
      page.server = fresh;
      renderHeader();
      notice('The file changed outside the console; save or reload to see it.', 'warn');
      return;
    }
    apply(fresh);
    renderHeader();
    if (tab === 'yaml') page.sub.refresh(kind);
    else if (tab === 'traffic' || (tab === 'try' && wasRunning === page.server.running)) return;
    else renderPanel();
  };
  page.reload = reload;
  page.close = () => { if (page.sub && page.sub.close) page.sub.close(); };
  return page;
}

// hasComments reports whether YAML text holds a comment: a # at the start of a line, or after
// a space outside quotes (a rough reading, erring towards asking).
export function hasComments(text) {
  return typeof text === 'string' && text.split('\n').some((line) => /^\s*#/.test(line) || /\s#/.test(line.replace(/"[^"]*"|'[^']*'/g, '')));
}

// clients is the Clients section: the address, the stdio command and mcpServers JSON.
function clients(app, s, fields) {
  const port = fields ? fields.port : undefined;
  const path = (fields && fields.mcp && fields.mcp.path) || '/mcp';
  const url = s.url || (port ? 'http://127.0.0.1:' + port + path : '');
  const bin = app.state.binary || 'octo';
  const cmd = [bin, 'serve', app.state.workspace, s.name, '--stdio'];
  const key = s.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'mock';
  const byURL = JSON.stringify({ mcpServers: { [key]: { url } } }, null, 2);
  const byCommand = JSON.stringify({ mcpServers: { [key]: { command: bin, args: cmd.slice(1) } } }, null, 2);
  const shell = cmd.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : "'" + a.replace(/'/g, "'\\''") + "'")).join(' ');
  const block = (title, text) => h('div', { class: 'client' }, h('h3', {}, title),
    h('pre', { tabindex: '0' }, text), copyButton('Copy', () => text));
  return h('div', { class: 'clients' },
    s.running ? null : h('p', { class: 'hint' }, 'Not running: start it to use the address.'),
    block('MCP address (Streamable HTTP)', url || '(the port is chosen when it starts)'),
    block('stdio command', shell),
    block('mcpServers, over HTTP', byURL),
    block('mcpServers, over stdio', byCommand));
}
