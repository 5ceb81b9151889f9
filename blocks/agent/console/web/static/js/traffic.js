// The traffic panel: what the servers received and answered, live, filtered by server,
// session, method and tool; click an entry for its JSON; clear; export as JSON lines.
import { api, events, download } from './api.js';
import { h, replace, notice, time } from './dom.js';

const MAX_ROWS = 2000;

export function trafficPage(app, root, fixed) {
  const filter = { server: fixed.server || '', session: '', method: '', tool: '' };
  const rows = h('ol', { class: 'traffic', id: 'traffic-list', 'aria-label': 'Traffic, oldest first', 'aria-live': 'off' });
  const count = h('span', { class: 'count', role: 'status' });
  const seen = new Set();
  let es = null;

  const input = (key, label, placeholder) => {
    const id = 'tf-' + key;
    return h('div', { class: 'field' }, h('label', { for: id }, label),
      h('input', { id, type: 'search', placeholder, value: filter[key], onchange: (e) => { filter[key] = e.target.value.trim(); reload(); } }));
  };
  const serverSelect = fixed.server ? null : h('div', { class: 'field' }, h('label', { for: 'tf-server' }, 'Server'),
    h('select', { id: 'tf-server', onchange: (e) => { filter.server = e.target.value; reload(); } },
      h('option', { value: '' }, 'All servers'), app.state.servers.map((s) => h('option', { value: s.name }, s.name))));
  const bar = h('form', { class: 'filters', onsubmit: (e) => e.preventDefault(), 'aria-label': 'Traffic filters' },
    serverSelect, input('session', 'Session', 'any'), input('method', 'Method', 'tools/call'), input('tool', 'Tool', 'get_weather'),
    h('div', { class: 'filter-actions' },
      h('button', { type: 'button', id: 'traffic-clear', onclick: clear }, 'Clear'),
      h('button', { type: 'button', id: 'traffic-export', onclick: exportLines }, 'Export JSON lines'), count));
  replace(root, fixed.server ? null : h('h2', {}, 'Traffic'), bar, rows);

  function query() {
    return Object.fromEntries(Object.entries(filter).filter(([, v]) => v));
  }

  function add(entries) {
    for (const e of entries) {
      if (seen.has(e.seq)) continue;
      seen.add(e.seq);
      rows.append(row(e));
    }
    while (rows.children.length > MAX_ROWS) rows.firstChild.remove();
    count.textContent = rows.children.length + ' shown';
  }

  async function reload() {
    if (es) es.close();
    seen.clear();
    rows.replaceChildren();
    try {
      const r = await api('GET', '/api/traffic?' + new URLSearchParams(query()));
      add(r.entries);
      es = events({ ...query(), after: String(r.last), only: 'traffic' });
      es.addEventListener('traffic', (ev) => add(JSON.parse(ev.data)));
    } catch (e) { notice(e.message, 'error'); }
  }

  async function clear() {
    try {
      await api('POST', '/api/traffic/clear', {});
      seen.clear();
      rows.replaceChildren();
      count.textContent = '0 shown';
    } catch (e) { notice(e.message, 'error'); }
  }

  async function exportLines() {
    try { await download('/api/traffic/export?' + new URLSearchParams(query()), 'octo-traffic.jsonl'); } catch (e) { notice(e.message, 'error'); }
  }

  reload();
  return { close() { if (es) es.close(); } };
}

function isError(e) {
  if (['error', 'invalid', 'rejected', 'problem'].includes(e.kind)) return true;
  const m = e.message;
  return !!(m && m.result && m.result.isError);
}

// row is one entry: a button that shows its JSON.
function row(e) {
  const arrow = e.direction === 'in' ? '→' : e.direction === 'out' ? '←' : '•';
  const details = h('pre', { class: 'json', hidden: true, tabindex: '0' });
  const head = h('button', { type: 'button', class: 'entry', 'aria-expanded': 'false', onclick: () => {
    const open = details.hidden;
    details.hidden = !open;
    head.setAttribute('aria-expanded', String(open));
    if (open && !details.textContent) details.textContent = JSON.stringify(e.message ?? e, null, 2);
  } },
  h('span', { class: 'time' }, time(e.time)), h('span', { class: 'srv' }, e.server),
  h('span', { class: 'dir', title: e.direction === 'in' ? 'client to server' : e.direction === 'out' ? 'server to client' : 'session' }, arrow),
  h('span', { class: 'kind' }, e.kind), h('span', { class: 'summary' }, e.summary || e.method || ''),
  e.session ? h('span', { class: 'session', title: 'session ' + e.session }, e.session.slice(0, 8))
    : e.version ? h('span', { class: 'session', title: 'no session: protocol revision ' + e.version }, e.version) : null);
  return h('li', { class: 'kind-' + e.kind + (isError(e) ? ' is-error' : ''), 'data-seq': e.seq }, head, details);
}
