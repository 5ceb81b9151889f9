// The Variables form: workspace.yaml's variables and environments as tables of name, value and
// whether it is secret (agents never read its value), the active environment as a choice. Switching or adding an environment saves at once; edits
// to values are saved with Save. Everything goes through /api/variables, checked as the YAML is.
import { api } from './api.js';
import { h, replace, notice } from './dom.js';

// variablesForm renders into root; saved() runs after every save. Its dirty says whether it
// holds edits not saved yet (a change from outside then leaves it alone).
export function variablesForm(root, saved) {
  let vals = null;
  let dirty = false;
  const edit = () => { dirty = true; };

  // newEnv is made once: a redraw keeps what is typed in it.
  const newEnv = h('input', { id: 'new-env', type: 'text', placeholder: 'staging', spellcheck: false });

  // load reads the values and redraws when they differ from those shown (the live stream
  // announces the form's own saves too: a redraw then would only lose the focus).
  async function load() {
    try {
      const read = await api('GET', '/api/variables');
      const same = vals !== null && JSON.stringify(read) === JSON.stringify(vals) && root.querySelector('.variables-form');
      vals = read;
      dirty = false;
      if (!same) render();
    } catch (e) {
      replace(root, h('p', { class: 'error', role: 'alert' }, e.message + ' (edit it as YAML below)'));
    }
  }

  async function save(what) {
    const sent = collect();
    if (typeof sent === 'string') {
      replace(root.querySelector('.form-errors'), h('pre', { role: 'alert' }, sent));
      return false;
    }
    try {
      await api('POST', '/api/variables', sent);
    } catch (e) {
      const detail = e.problems.map((p) => p.message).join('\n');
      replace(root.querySelector('.form-errors'), h('pre', { role: 'alert' }, e.message + (detail ? '\n' + detail : '')));
      return false;
    }
    await load();
    notice(what); // after the redraw, so what it says is what the page shows
    saved();
    return true;
  }

  // collect reads the tables back into values, or says what is wrong.
  function collect() {
    const out = { variables: {}, environments: {}, environment: root.querySelector('#active-env').value, secrets: [] };
    for (const table of root.querySelectorAll('table.vars')) {
      const env = table.dataset.env;
      const into = env ? (out.environments[env] = {}) : out.variables;
      for (const tr of table.querySelectorAll('tbody tr')) {
        const [k, v] = [...tr.querySelectorAll('input[type=text], input[type=password]')].map((i) => i.value);
        const name = k.trim();
        if (name === '' && v === '') continue;
        if (name === '') return 'A variable ' + (env ? 'of ' + env + ' ' : '') + 'has a value but no name.';
        if (name in into) return 'The variable ' + name + ' is there twice' + (env ? ' in ' + env : '') + '.';
        into[name] = v;
        if (tr.querySelector('input[type=checkbox]').checked && !out.secrets.includes(name)) out.secrets.push(name);
      }
    }
    return out;
  }

  function render() {
    const envs = Object.keys(vals.environments).sort();
    const envSelect = h('select', { id: 'active-env', onchange: async (e) => {
      const env = e.target.value;
      if (!(await save(env ? 'Active environment: ' + env + '.' : 'No active environment.'))) e.target.value = vals.environment;
    } }, h('option', { value: '' }, '(none)'), envs.map((n) => h('option', { value: n, selected: n === vals.environment }, n)));
    const addEnv = async () => {
      const name = newEnv.value.trim();
      if (!name) { newEnv.focus(); return; }
      if (name in vals.environments) { notice('There is an environment ' + name + ' already.', 'error'); return; }
      const table = h('table', { class: 'vars', 'data-env': name }, h('tbody'));
      root.querySelector('.tables').append(table); // collected with the others, then saved
      if (await save('Added the environment ' + name + '.')) newEnv.value = '';
      else table.remove();
    };
    replace(root,
      h('div', { class: 'env-row' },
        h('div', { class: 'field' }, h('label', { for: 'active-env' }, 'Active environment'), envSelect),
        h('div', { class: 'field' }, h('label', { for: 'new-env' }, 'New environment'), newEnv),
        h('button', { type: 'button', id: 'add-env', onclick: addEnv }, 'Add environment')),
      h('form', { class: 'variables-form', onsubmit: (e) => { e.preventDefault(); save('Saved the variables.'); } },
        h('div', { class: 'tables' },
          table('Workspace variables', '', vals.variables),
          envs.map((n) => table('Environment ' + n + (n === vals.environment ? ' (active: its values win)' : ''), n, vals.environments[n]))),
        h('div', { class: 'form-errors' }),
        h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary', id: 'save-variables' }, 'Save'))));
  }

  // table is one set of variables (env "" for the workspace's) with Add and Remove.
  function table(title, env, values) {
    const body = h('tbody');
    const add = (k = '', v = '') => {
      const label = env ? ' of ' + env : '';
      const secret = (vals.secrets || []).includes(k);
      const value = h('input', { type: secret ? 'password' : 'text', value: v, spellcheck: false, 'aria-label': 'Value' + (k ? ' of ' + k : '') + label, oninput: edit });
      const tr = h('tr', {},
        h('td', {}, h('input', { type: 'text', value: k, spellcheck: false, 'aria-label': 'Name' + label, oninput: edit })),
        h('td', {}, value),
        h('td', {}, h('input', { type: 'checkbox', checked: secret, 'aria-label': 'Secret: agents never read ' + (k || 'this variable') + label,
          onchange: (e) => { value.type = e.target.checked ? 'password' : 'text'; edit(); } })),
        h('td', {}, h('button', { type: 'button', class: 'remove', 'aria-label': 'Remove ' + (k || 'this variable') + label,
          onclick: () => { tr.remove(); edit(); } }, 'Remove')));
      body.append(tr);
      return tr;
    };
    for (const k of Object.keys(values).sort()) add(k, values[k]);
    const caption = h('caption', {}, title);
    const removeEnv = env ? h('button', { type: 'button', class: 'danger', onclick: () => {
      tbl.remove();
      const active = root.querySelector('#active-env');
      if (active.value === env) active.value = '';
      save('Removed the environment ' + env + '.').then((done) => { if (!done) render(); });
    } }, 'Remove environment ' + env) : null;
    const tbl = h('table', { class: 'vars', 'data-env': env || null }, caption,
      h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Value'), h('th', { title: 'Agents never read a secret value' }, 'Secret'), h('th', {}, h('span', { class: 'visually-hidden' }, 'Remove')))),
      body,
      h('tfoot', {}, h('tr', {}, h('td', { colSpan: 4 },
        h('button', { type: 'button', class: 'add', onclick: () => { add().querySelector('input').focus(); edit(); } },
          'Add variable' + (env ? ' to ' + env : '')), ' ', removeEnv))));
    return tbl;
  }

  load();
  return { load, get dirty() { return dirty; } };
}
