// Variables: the workspace's workspace.yaml (variables, environments, the active one) as YAML,
// and the names the servers can use.
import { api, tool } from './api.js';
import { h, replace, notice } from './dom.js';
import { lineEditor } from './yaml.js';

export function workspacePage(app, root) {
  let dirty = false;
  const names = h('p', { class: 'hint' });
  const ed = lineEditor('workspace.yaml', '', () => { dirty = true; });
  replace(root, h('h2', {}, 'Variables and environments'),
    h('p', {}, 'Write {{name}} in results, resource texts and prompt messages to use a variable. ',
      'The active environment’s values win over variables.'),
    names, ed.el,
    h('div', { class: 'form-actions' }, h('button', { type: 'button', class: 'primary', onclick: save }, 'Save')));
  async function load() {
    try {
      const r = await api('GET', '/api/workspace-yaml');
      ed.value = r.yaml || '# variables:\n#   apiBase: http://localhost:8080\n# environments:\n#   staging: { apiBase: https://staging.example.com }\n# environment: staging\n';
      const ws = JSON.parse((await tool('get_workspace', {})).text);
      names.textContent = 'Variables: ' + (ws.variables.join(', ') || 'none') +
        (ws.environment ? ' · active environment: ' + ws.environment : '');
    } catch (e) { notice(e.message, 'error'); }
  }
  async function save() {
    try {
      await api('PUT', '/api/workspace-yaml', ed.value);
      dirty = false;
      ed.show([]);
      notice('Saved workspace.yaml.');
      load();
    } catch (e) { ed.show(e.problems.length ? e.problems : [{ message: e.message }]); }
  }
  load();
  return { refresh(kind) { if (kind === 'workspace' && !dirty) load(); } };
}
