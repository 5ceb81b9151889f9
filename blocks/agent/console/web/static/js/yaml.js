// The YAML tab: the server's file as text, with line numbers; problems are shown at their
// lines. An edit made elsewhere replaces the text unless it has unsaved edits.
import { api } from './api.js';
import { h, replace, notice } from './dom.js';

// lineEditor is a textarea with a line-number gutter that marks problem lines.
export function lineEditor(label, text, onEdit) {
  const gutter = h('div', { class: 'gutter', 'aria-hidden': 'true' });
  const area = h('textarea', { id: 'yaml-text', class: 'code', spellcheck: false, wrap: 'off', value: text,
    'aria-describedby': 'yaml-problems', oninput: () => { numbers(); onEdit(); }, onscroll: () => { gutter.scrollTop = area.scrollTop; } });
  const problems = h('ul', { id: 'yaml-problems', class: 'problems', 'aria-live': 'polite' });
  let marked = new Map();
  function numbers() {
    const n = area.value.split('\n').length;
    replace(gutter, Array.from({ length: n }, (_, i) => h('div', { class: marked.has(i + 1) ? 'bad' : '', title: marked.get(i + 1) || '' }, String(i + 1))));
    gutter.scrollTop = area.scrollTop;
  }
  function goTo(line) {
    const lines = area.value.split('\n');
    const start = lines.slice(0, line - 1).join('\n').length + (line > 1 ? 1 : 0);
    area.focus();
    area.setSelectionRange(start, start + (lines[line - 1] || '').length);
    area.scrollTop = Math.max(0, (line - 3) * parseFloat(getComputedStyle(area).lineHeight || '18'));
  }
  const ed = {
    el: h('div', { class: 'yaml' }, h('label', { for: 'yaml-text' }, label), h('div', { class: 'editor' }, gutter, area), problems),
    area,
    get value() { return area.value; },
    set value(v) { area.value = v; numbers(); },
    show(list) {
      marked = new Map(list.filter((p) => p.line).map((p) => [p.line, p.message]));
      replace(problems, list.map((p) => h('li', { class: 'problem' },
        p.line ? h('button', { type: 'button', class: 'link', onclick: () => goTo(p.line) }, 'Line ' + p.line) : null,
        ' ', p.message || p.text)));
      numbers();
      if (list.length && list[0].line) goTo(list[0].line);
    },
  };
  numbers();
  return ed;
}

export function yamlEditor(app, panel, page, reload) {
  let dirty = false;
  let shown = '';
  const ed = lineEditor('The server file (' + page.server.file + ')', '', () => { dirty = true; });
  const save = h('button', { type: 'button', class: 'primary', id: 'save-yaml', onclick: async () => {
    try {
      const r = await api('PUT', '/api/yaml?name=' + encodeURIComponent(page.name), ed.value);
      dirty = false;
      ed.show([]);
      notice('Saved ' + r.file + '.');
      if (r.name !== page.name) {
        await app.refresh();
        app.go(app.serverHash(r.name, 'yaml'));
      } else await reload();
    } catch (e) {
      ed.show(e.problems.length ? e.problems : [{ message: e.message }]);
    }
  } }, 'Save');
  const revert = h('button', { type: 'button', onclick: () => { dirty = false; load(); } }, 'Reload from disk');
  replace(panel, ed.el, h('div', { class: 'form-actions' }, save, revert));
  async function load() {
    try {
      const r = await api('GET', '/api/yaml?name=' + encodeURIComponent(page.name));
      if (r.yaml !== shown || !dirty) {
        shown = r.yaml;
        ed.value = r.yaml;
      }
    } catch (e) {
      ed.show(e.problems.length ? e.problems : [{ message: e.message }]);
    }
  }
  load();
  return {
    refresh() {
      if (dirty) notice('The file changed outside the console; "Reload from disk" shows it (your edits are lost).', 'warn');
      else load();
    },
  };
}
