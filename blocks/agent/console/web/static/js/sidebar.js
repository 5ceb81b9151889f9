// The servers sidebar: every saved server with its state, and per row a menu of the server's
// actions (start/stop, rename, duplicate, delete), usable from the keyboard: the menu button
// opens it on its first item, arrows move, Escape closes it back on the button.
import { h, replace } from './dom.js';
import { startStop, rename, duplicate, remove } from './actions.js';

// open is the row whose menu or rename form is open: kept across the sidebar's redraws.
const open = { name: '', renaming: false };

// renderSidebar draws the list; force redraws even while the user works in a row.
export function renderSidebar(app, force = false) {
  const list = document.getElementById('server-list');
  // A redraw while the user works in a row (the live stream announced a change) waits until
  // the menu or form closes, so neither focus nor typed text is lost.
  if (!force && open.name && list.contains(document.activeElement)) return;
  const current = decodeURIComponent((location.hash.match(/^#\/server\/([^/]*)/) || [])[1] || '');
  const focused = focusedIn(list);
  replace(list, app.state.servers.map((s) => row(app, s, s.name === current)));
  if (focused) list.querySelector(`li[data-server="${CSS.escape(focused.server)}"] ${focused.part}`)?.focus();
  if (app.state.servers.length === 0) list.append(h('li', { class: 'empty' }, 'No servers yet.'));
  const count = document.getElementById('pending-count');
  count.hidden = app.state.pending.length === 0;
  count.textContent = app.state.pending.length;
  for (const b of document.querySelectorAll('.page-link')) {
    const on = location.hash.startsWith('#/' + b.dataset.page);
    b.classList.toggle('current', on);
    if (on) b.setAttribute('aria-current', 'page'); else b.removeAttribute('aria-current');
  }
}

// focusedIn names the row link or menu button of list that has the focus, so a redraw can
// give it back (the live stream redraws at any time, a keyboard user must not lose their place).
function focusedIn(list) {
  const el = document.activeElement;
  const li = el && list.contains(el) ? el.closest('li[data-server]') : null;
  if (!li) return null;
  if (el.classList.contains('row-menu-button')) return { server: li.dataset.server, part: '.row-menu-button' };
  if (el.classList.contains('server-link')) return { server: li.dataset.server, part: '.server-link' };
  return null;
}

// show opens name's menu (or its rename form), or closes every row ("" ), redraws, and puts the
// focus where the keyboard continues: the first item, the name field, or the row's button.
export function show(app, name, renaming = false, focusButton = '') {
  open.name = name;
  open.renaming = renaming;
  renderSidebar(app, true);
  const li = name || focusButton ? document.querySelector(`li[data-server="${CSS.escape(name || focusButton)}"]`) : null;
  if (!li) return;
  if (!name) li.querySelector('.row-menu-button').focus();
  else if (renaming) li.querySelector('input').select();
  else li.querySelector('[role=menuitem]').focus();
}

// closeOnClickOutside closes an open menu or rename form when a click lands outside them (a
// row's own link included). A clicked item may be gone from the page by now, but it still has
// its old ancestors.
export function closeOnClickOutside(app) {
  document.addEventListener('click', (e) => {
    if (open.name && !e.target.closest('.row-menu, .row-rename, .row-menu-button')) show(app, '');
  });
}

function row(app, s, current) {
  const status = s.problem ? 'problem' : s.running ? 'running' : 'stopped';
  const link = h('a', { href: app.serverHash(s.name), class: 'server-link' + (current ? ' current' : ''),
    'aria-current': current ? 'page' : null, title: s.problem || s.url || 'stopped' },
  h('span', { class: 'dot ' + status, 'aria-hidden': 'true' }), h('span', { class: 'server-name' }, s.name),
  s.kind === 'http' ? h('span', { class: 'kind-tag', title: 'an HTTP API' }, 'HTTP') : null,
  h('span', { class: 'visually-hidden' }, ' (' + status + ')'));
  const menuOpen = open.name === s.name && !open.renaming;
  const button = h('button', { type: 'button', class: 'row-menu-button', 'aria-haspopup': 'menu',
    'aria-expanded': String(menuOpen), 'aria-label': 'Actions for ' + s.name,
    onclick: () => show(app, menuOpen ? '' : s.name, false, s.name) }, '⋯');
  const li = h('li', { class: 'server-row', 'data-server': s.name }, h('div', { class: 'row-head' }, link, button));
  if (open.name === s.name) li.append(open.renaming ? renameForm(app, s.name) : menu(app, s));
  return li;
}

function menu(app, s) {
  const item = (label, act, cls) => h('button', { type: 'button', role: 'menuitem', class: cls || null, tabindex: '-1', onclick: act }, label);
  const m = h('div', { class: 'row-menu', role: 'menu', 'aria-label': 'Actions for ' + s.name, onkeydown: (e) => keys(e, m, app, s.name) },
    item(s.running ? 'Stop' : 'Start', () => { show(app, '', false, s.name); startStop(app, s.name, s.running); }),
    item('Rename…', () => show(app, s.name, true)),
    item('Duplicate', () => { show(app, ''); duplicate(app, s.name); }),
    item('Delete', () => { show(app, ''); remove(app, s.name); }, 'danger'));
  return m;
}

// keys moves between a menu's items with the arrows, Home and End; Escape and Tab close it.
function keys(e, m, app, name) {
  const items = [...m.querySelectorAll('[role=menuitem]')];
  const i = items.indexOf(document.activeElement);
  const to = { ArrowDown: i + 1, ArrowUp: i - 1 + items.length, Home: 0, End: items.length - 1 }[e.key];
  if (to !== undefined) {
    e.preventDefault();
    items[to % items.length].focus();
  } else if (e.key === 'Escape') {
    e.preventDefault();
    show(app, '', false, name);
  } else if (e.key === 'Tab') {
    e.preventDefault();
    show(app, '', false, name);
  }
}

function renameForm(app, name) {
  const id = 'rename-row-' + name.replace(/[^\w-]/g, '_');
  const cancel = () => show(app, '', false, name);
  const input = h('input', { id, value: name, type: 'text', onkeydown: (e) => { if (e.key === 'Escape') { e.preventDefault(); cancel(); } } });
  return h('form', { class: 'row-rename', onsubmit: async (e) => {
    e.preventDefault();
    const to = input.value.trim();
    if (to === name) { cancel(); return; }
    open.name = ''; // the rename redraws the sidebar, without this row
    if (!(await rename(app, name, to))) show(app, name, true);
  } }, h('label', { for: id }, 'New name for ' + name), input,
  h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Rename'),
    h('button', { type: 'button', onclick: cancel }, 'Cancel')));
}
