// Variables: workspace.yaml (variables, environments, the active one) as a form, and the same
// file as YAML for what the form does not keep (comments, layout).
import { api } from './api.js';
import { h, replace, notice } from './dom.js';
import { lineEditor } from './yaml.js';
import { variablesForm } from './variables.js';

export function workspacePage(app, root) {
  let yamlDirty = false;
  const formBox = h('div', { class: 'variables' });
  const ed = lineEditor('workspace.yaml', '', () => { yamlDirty = true; });
  const form = variablesForm(formBox, () => { if (!yamlDirty) loadYAML(); });
  replace(root, h('h2', {}, 'Variables and environments'),
    h('p', {}, 'Write {{name}} in results, resource texts and prompt messages to use a variable. ',
      'The active environment’s values win over the workspace variables.'),
    formBox,
    h('details', { class: 'as-yaml' }, h('summary', {}, 'As YAML (workspace.yaml; the form does not keep its comments)'),
      ed.el, h('div', { class: 'form-actions' }, h('button', { type: 'button', class: 'primary', id: 'save-workspace-yaml', onclick: save }, 'Save YAML'))));
  async function loadYAML() {
    try {
      const r = await api('GET', '/api/workspace-yaml');
      ed.value = r.yaml || '# variables:\n#   apiBase: http://localhost:8080\n# environments:\n#   staging: { apiBase: https://staging.example.com }\n# environment: staging\n';
      yamlDirty = false;
    } catch (e) { notice(e.message, 'error'); }
  }
  async function save() {
    try {
      await api('PUT', '/api/workspace-yaml', ed.value);
      yamlDirty = false;
      ed.show([]);
      notice('Saved workspace.yaml.');
      loadYAML();
      form.load();
    } catch (e) { ed.show(e.problems.length ? e.problems : [{ message: e.message }]); }
  }
  loadYAML();
  return {
    refresh(kind) {
      if (kind !== 'workspace') return;
      if (!form.dirty) form.load();
      if (!yamlDirty) loadYAML();
    },
  };
}
