// Forms over a server's fields (get_server's answer, save_server's arguments): each input is
// bound to a key of an object; emptying an input removes its key, so the file stays minimal.
import { h } from './dom.js';

let uid = 0;

// field renders one input bound to obj[spec.key]; changed() is called on every edit.
export function field(obj, spec, changed) {
  const id = 'f' + (++uid);
  const set = (v) => {
    if (v === '' || v === undefined || (spec.type === 'number' && Number.isNaN(v))) delete obj[spec.key];
    else obj[spec.key] = v;
    changed();
  };
  let input;
  switch (spec.type) {
    case 'json': { // a JSON Schema: JSON text, or a YAML mapping the file holds (shown as JSON)
      const v = obj[spec.key];
      const problem = h('small', { class: 'hint error', role: 'alert', hidden: true });
      input = h('textarea', { id, class: 'code', rows: spec.rows || 4, spellcheck: false,
        value: v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v, null, 2),
        oninput: (e) => {
          const text = e.target.value;
          let parsed;
          try { parsed = text.trim() ? JSON.parse(text) : undefined; problem.hidden = true; } catch (err) {
            problem.textContent = 'Not JSON yet: ' + err.message;
            problem.hidden = false;
            set(text); // saved as written, and refused with the reason if it stays so
            return;
          }
          // A mapping stays a mapping in the file; text stays text.
          set(typeof v === 'object' && v !== null ? parsed : text);
        } });
      if (spec.placeholder) input.placeholder = spec.placeholder;
      return h('div', { class: 'field' }, h('label', { for: id }, spec.label), input, hint(spec), problem);
    }
    case 'textarea':
      input = h('textarea', { id, rows: spec.rows || 3, value: obj[spec.key] ?? '', spellcheck: false,
        oninput: (e) => set(e.target.value) });
      break;
    case 'checkbox': {
      const on = spec.defaultOn ? obj[spec.key] !== false : !!obj[spec.key];
      input = h('input', { id, type: 'checkbox', checked: on, onchange: (e) => {
        const v = e.target.checked;
        set(spec.defaultOn ? (v ? undefined : false) : (v ? true : undefined));
      } });
      return h('div', { class: 'field check' }, input, h('label', { for: id }, spec.label), hint(spec));
    }
    case 'select':
      input = h('select', { id, onchange: (e) => set(e.target.value) },
        spec.options.map((o) => h('option', { value: o, selected: (obj[spec.key] ?? spec.options[0]) === o }, o)));
      break;
    case 'number':
      input = h('input', { id, type: 'number', min: spec.min ?? 0, value: obj[spec.key] ?? '',
        oninput: (e) => set(e.target.value === '' ? undefined : Number(e.target.value)) });
      break;
    default:
      input = h('input', { id, type: 'text', value: obj[spec.key] ?? '', spellcheck: false,
        required: spec.required, oninput: (e) => set(e.target.value) });
  }
  if (spec.placeholder) input.placeholder = spec.placeholder;
  return h('div', { class: 'field' }, h('label', { for: id }, spec.label), input, hint(spec));
}

function hint(spec) {
  return spec.hint ? h('small', { class: 'hint' }, spec.hint) : null;
}

// list renders an editable list of objects (obj[key]), each with spec.fields, with Add and
// Remove buttons.
export function list(obj, key, spec, changed) {
  const box = h('div', { class: 'list' });
  const render = () => {
    const items = obj[key] || [];
    box.replaceChildren(
      ...items.map((item, i) => h('fieldset', { class: 'item' },
        h('legend', {}, spec.title(item, i)),
        spec.fields.map((f) => (f.list ? list(item, f.key, f.list, changed) : field(item, f, changed))),
        h('button', { type: 'button', class: 'remove', onclick: () => {
          items.splice(i, 1);
          if (items.length === 0) delete obj[key];
          changed();
          render();
        } }, 'Remove ' + spec.noun + (spec.title(item, i) ? ' ' + spec.title(item, i) : '')))),
      h('button', { type: 'button', class: 'add', onclick: () => {
        obj[key] = obj[key] || [];
        obj[key].push(spec.make(obj[key].length));
        changed();
        render();
        const last = box.querySelectorAll('fieldset.item');
        last[last.length - 1]?.querySelector('input, textarea')?.focus();
      } }, 'Add ' + spec.noun));
  };
  render();
  return box;
}

// The sections of a saved MCP server.
export const toolSpec = {
  noun: 'tool',
  title: (t) => t.name || '(no name)',
  make: (n) => ({ name: 'tool_' + (n + 1), description: '', result: '' }),
  fields: [
    { key: 'name', label: 'Name', required: true, hint: 'What clients call.' },
    { key: 'title', label: 'Title', hint: 'A display name for people (optional).' },
    { key: 'description', label: 'Description', type: 'textarea', hint: 'What it does and when to use it: the model reads it.' },
    { key: 'inputSchema', label: 'Input schema (JSON Schema)', type: 'json', placeholder: '{"type": "object", "properties": {}}' },
    { key: 'result', label: 'Result', type: 'textarea', hint: 'The answer; {{args.name}} inserts an argument.' },
    { key: 'isError', label: 'Answer as a failed call', type: 'checkbox' },
    { key: 'delayMs', label: 'Delay (ms)', type: 'number' },
    { key: 'enabled', label: 'Enabled', type: 'checkbox', defaultOn: true },
  ],
};

export const resourceSpec = {
  noun: 'resource',
  title: (r) => r.uri || '(no URI)',
  make: (n) => ({ uri: 'docs://page' + (n + 1), name: 'page' + (n + 1), text: '' }),
  fields: [
    { key: 'uri', label: 'URI', required: true, hint: 'Such as docs://readme; with {parts} a template.' },
    { key: 'name', label: 'Name' },
    { key: 'description', label: 'Description' },
    { key: 'mimeType', label: 'MIME type', placeholder: 'text/plain' },
    { key: 'text', label: 'Text', type: 'textarea', rows: 5 },
  ],
};

export const promptSpec = {
  noun: 'prompt',
  title: (p) => p.name || '(no name)',
  make: (n) => ({ name: 'prompt_' + (n + 1), messages: [{ role: 'user', text: '' }] }),
  fields: [
    { key: 'name', label: 'Name', required: true },
    { key: 'description', label: 'Description' },
    { key: 'arguments', list: { noun: 'argument', title: (a) => a.name || '', make: () => ({ name: '' }),
      fields: [{ key: 'name', label: 'Argument name' }, { key: 'description', label: 'Argument description' },
        { key: 'required', label: 'Required', type: 'checkbox' }] } },
    { key: 'messages', list: { noun: 'message', title: (m, i) => '#' + (i + 1), make: () => ({ role: 'user', text: '' }),
      fields: [{ key: 'role', label: 'Role', type: 'select', options: ['user', 'assistant'] },
        { key: 'text', label: 'Text', type: 'textarea' }] } },
  ],
};

export const settingsFields = [
  { key: 'serverName', label: 'Name clients see', hint: "serverInfo.name; default: the server's name." },
  { key: 'version', label: 'Version', placeholder: '1.0.0' },
  { key: 'instructions', label: 'Instructions', type: 'textarea', hint: 'Sent with initialize: how to use the server.' },
  { key: 'path', label: 'Endpoint path', placeholder: '/mcp' },
  { key: 'cors', label: 'Answer browsers on other origins (CORS)', type: 'checkbox' },
];

// The routes and settings of a saved HTTP API (kind http). Headers and answers that vary are
// edited in the YAML tab.
export const routeSpec = {
  noun: 'route',
  title: (r) => ((r.method || 'GET').toUpperCase() + ' ' + (r.path || '')).trim(),
  make: (n) => ({ method: 'GET', path: '/items' + (n ? n + 1 : ''), body: '' }),
  fields: [
    { key: 'method', label: 'Method', type: 'select', options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] },
    { key: 'path', label: 'Path', required: true, hint: 'Such as /invoices/{id}: {id} is a whole segment, read as {{params.id}}.' },
    { key: 'status', label: 'Status', type: 'number', min: 100, placeholder: '200' },
    { key: 'body', label: 'Body', type: 'textarea', rows: 5, hint: 'A template: {{params.id}}, {{query.page}}, {{body.name}}, {{$uuid}}.' },
    { key: 'delayMs', label: 'Delay (ms)', type: 'number' },
    { key: 'enabled', label: 'Enabled', type: 'checkbox', defaultOn: true },
  ],
};

export const httpSettingsFields = [
  { key: 'seed', label: 'Seed', type: 'number', hint: 'Makes {{$…}} values and failure rates repeat run after run.' },
  { key: 'cors', label: 'Answer browsers on other origins (CORS)', type: 'checkbox' },
];
