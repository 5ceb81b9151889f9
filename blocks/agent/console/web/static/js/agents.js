// Agents: the settings for AI agents, what agents wait for (Approve / Deny / Always allow this
// kind), the agents connected (Disconnect), and the decisions made.
import { api } from './api.js';
import { h, replace, notice, time, copyButton } from './dom.js';

async function answer(app, id, how) {
  try {
    await api('POST', '/api/answer', { id, answer: how });
  } catch (e) { notice(e.message, 'error'); }
  await app.refresh();
  if (app.page && app.page.refresh) app.page.refresh('agents');
}

function question(app, q) {
  return h('li', { class: 'question', 'data-id': q.id },
    h('p', {}, q.text),
    q.detail && q.detail.length ? h('ul', { class: 'detail' }, q.detail.map((line) => h('li', {}, line))) : null,
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'primary approve', onclick: () => answer(app, q.id, 'approve') }, q.allowAgents ? 'Allow agents' : 'Approve'),
      h('button', { type: 'button', class: 'deny', onclick: () => answer(app, q.id, 'deny') }, 'Deny'),
      q.allowAgents ? null : h('button', { type: 'button', class: 'always', onclick: () => answer(app, q.id, 'always') }, 'Always allow ' + q.tool)));
}

// pendingBanner shows waiting questions on every page but the Agents page.
export function pendingBanner(app) {
  let banner = document.getElementById('pending-banner');
  if (!banner) {
    banner = h('section', { id: 'pending-banner', 'aria-label': 'Agents waiting for you', 'aria-live': 'polite' });
    document.getElementById('main').prepend(banner);
  }
  const onAgents = location.hash.startsWith('#/agents');
  const waiting = app.state.pending;
  banner.hidden = onAgents || waiting.length === 0;
  replace(banner, banner.hidden ? null : [h('h2', {}, 'An agent is waiting for you'), h('ul', { class: 'questions' }, waiting.map((q) => question(app, q)))]);
}

export function agentsPage(app, root) {
  function render() {
    const s = app.state;
    const setting = (key, label, hint) => {
      const id = 'set-' + key;
      return h('div', { class: 'field check' },
        h('input', { id, type: 'checkbox', checked: s.settings[key], onchange: (e) => save({ [key]: e.target.checked }) }),
        h('label', { for: id }, label), h('small', { class: 'hint' }, hint));
    };
    replace(root,
      h('h2', {}, 'Agents'),
      h('section', { 'aria-labelledby': 'waiting-title' }, h('h3', { id: 'waiting-title' }, 'Waiting for you'),
        s.canApprove ? null : h('p', { class: 'hint' }, 'This app asks in its terminal.'),
        s.pending.length ? h('ul', { class: 'questions', id: 'pending-list' }, s.pending.map((q) => question(app, q)))
          : h('p', { class: 'empty' }, 'Nothing is waiting.')),
      h('section', { 'aria-labelledby': 'connected-title' }, h('h3', { id: 'connected-title' }, 'Connected'),
        s.agents.length ? h('ul', { class: 'agents' }, s.agents.map((g) => h('li', {},
          h('span', {}, g.name || '(unnamed agent)'), h('small', {}, ' since ' + time(g.since)),
          h('button', { type: 'button', onclick: async () => {
            try { await api('POST', '/api/disconnect', { id: g.id }); } catch (e) { notice(e.message, 'error'); }
            await app.refresh(); render();
          } }, 'Disconnect ' + (g.name || 'agent')))))
          : h('p', { class: 'empty' }, 'No agent is connected. Agents reach Octo through octo mcp.')),
      h('section', { 'aria-labelledby': 'connect-title' }, h('h3', { id: 'connect-title' }, 'Connect an agent'),
        h('p', { class: 'hint' }, 'Run the command for your agent once: it starts octo mcp, which reaches this app, when it needs Octo.'),
        h('dl', { class: 'connect' }, (s.connect || []).flatMap((c) => [h('dt', {}, c.agent),
          h('dd', {}, h('pre', { tabindex: '0' }, c.text), copyButton('Copy', () => c.text))]))),
      h('section', { 'aria-labelledby': 'settings-title' }, h('h3', { id: 'settings-title' }, 'Settings'),
        setting('allow', 'Allow AI agents', 'Agents may use Octo’s tools. Off, the first agent call asks you.'),
        setting('withoutApp', 'Work without the app', 'When the app is closed, octo mcp runs the tools itself and refuses what would ask you.'),
        h('div', { class: 'field' }, h('label', { for: 'set-approve' }, 'Ask before'),
          h('select', { id: 'set-approve', onchange: (e) => save({ approve: e.target.value }) },
            h('option', { value: 'changes', selected: s.settings.approve !== 'never' }, 'changes (save, delete, start, stop)'),
            h('option', { value: 'never', selected: s.settings.approve === 'never' }, 'never')))),
      h('section', { 'aria-labelledby': 'history-title' }, h('h3', { id: 'history-title' }, 'History'),
        s.history.length ? h('table', { class: 'history' },
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Time'), h('th', { scope: 'col' }, 'Agent'), h('th', { scope: 'col' }, 'Action'), h('th', { scope: 'col' }, 'Decision'))),
          h('tbody', {}, s.history.slice().reverse().map((d) => h('tr', { class: 'outcome-' + d.outcome.replace(/[^a-z]+/g, '-') },
            h('td', {}, time(d.at)), h('td', {}, d.agent), h('td', {}, d.summary), h('td', {}, d.by ? d.outcome + ' (' + d.by + ')' : d.outcome)))))
          : h('p', { class: 'empty' }, 'No decisions yet.')));
  }
  async function save(change) {
    try { await api('POST', '/api/settings', change); notice('Saved.'); } catch (e) { notice(e.message, 'error'); }
    await app.refresh();
    render();
  }
  render();
  return { refresh: render };
}
