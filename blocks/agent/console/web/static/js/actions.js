// A saved server's actions, the same from the sidebar's row menu and the server page's header:
// start/stop, rename, duplicate, delete with undo. Each says what happened in the notice and
// moves the page where the header would.
import { api, tool } from './api.js';
import { h, notice } from './dom.js';

// showing says whether the page shows the server name.
function showing(name) {
  const m = location.hash.match(/^#\/server\/([^/]*)/);
  return m !== null && decodeURIComponent(m[1]) === name;
}

// startStop starts a stopped server and stops a running one.
export async function startStop(app, name, running) {
  try {
    const r = await tool(running ? 'stop_server' : 'start_server', { name });
    notice(r.text.split('\n')[0]);
  } catch (e) { notice(e.message, 'error'); }
  await app.refresh();
  if (showing(name) && app.page && app.page.reload) await app.page.reload();
}

// rename renames name to `to`; the page follows when it showed the server. It answers
// whether the rename was made.
export async function rename(app, name, to) {
  const tab = (location.hash.match(/^#\/server\/[^/]*\/(\w+)/) || [])[1] || 'tools';
  try {
    await api('POST', '/api/rename', { name, to });
  } catch (e) {
    notice(e.message, 'error');
    return false;
  }
  await app.refresh();
  notice('Renamed "' + name + '" to "' + to + '".');
  if (showing(name)) app.go(app.serverHash(to, tab));
  return true;
}

// duplicate copies name and shows the copy.
export async function duplicate(app, name) {
  try {
    const made = await api('POST', '/api/duplicate', { name });
    await app.refresh();
    notice('Made "' + made.name + '".');
    app.go(app.serverHash(made.name));
  } catch (e) { notice(e.message, 'error'); }
}

// remove deletes name, offering Undo in the notice.
export async function remove(app, name) {
  let r;
  try {
    r = await api('POST', '/api/delete', { name });
  } catch (e) {
    notice(e.message, 'error');
    return;
  }
  await app.refresh();
  notice('Deleted "' + name + '".', 'info', h('button', { type: 'button', id: 'undo-delete', onclick: () => undo(app, r.undo) }, 'Undo'));
  if (showing(name)) app.go('#/traffic');
}

async function undo(app, id) {
  try {
    const back = await api('POST', '/api/undo', { undo: id });
    await app.refresh();
    notice('"' + back.name + '" is back.');
    app.go(app.serverHash(back.name));
  } catch (e) { notice(e.message, 'error'); }
}
