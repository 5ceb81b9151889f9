// Try it: call a tool, read a resource or get a prompt of the running server with octo's own
// MCP client (the call_server agent tool, run as the user).
import { tool, streamTool } from './api.js';
import { h, replace } from './dom.js';

// example is arguments that fit a tool's input schema (JSON text, or the object a YAML mapping
// is): each property's default, first example, const or first enum value, else an empty value
// of its type.
export function example(schema) {
  let s = schema || {};
  if (typeof s === 'string') {
    try { s = JSON.parse(s || '{}'); } catch { return {}; }
  }
  const args = sampleOf({ type: 'object', ...s }, 0); // arguments are an object, whatever the schema omits
  return args && typeof args === 'object' && !Array.isArray(args) ? args : {};
}

function sampleOf(s, depth) {
  if (!s || typeof s !== 'object') return '';
  if ('default' in s) return s.default;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'integer': case 'number': return s.minimum ?? 0;
    case 'boolean': return false;
    case 'array': return [];
    case 'string': return '';
  }
  if (type === 'object' || s.properties) {
    if (depth > 4) return {};
    return Object.fromEntries(Object.entries(s.properties || {}).map(([k, p]) => [k, sampleOf(p, depth + 1)]));
  }
  return '';
}

export function tryIt(app, panel, server, fields, reload) {
  const mcp = (fields && fields.mcp) || {};
  const kinds = {
    tool: (mcp.tools || []).filter((t) => t.enabled !== false).map((t) => t.name),
    resource: (mcp.resources || []).map((r) => r.uri),
    prompt: (mcp.prompts || []).map((p) => p.name),
  };
  if (!server.running) {
    replace(panel, h('p', {}, 'Start the server to try it.'),
      h('button', { type: 'button', class: 'primary', onclick: async () => { await tool('start_server', { name: server.name }).catch(() => {}); reload(); } }, 'Start'));
    return null;
  }
  const kind = h('select', { id: 'try-kind', onchange: () => { fillNames(); sample(); } },
    Object.keys(kinds).map((k) => h('option', { value: k }, k)));
  const target = h('select', { id: 'try-name', onchange: sample });
  const args = h('textarea', { id: 'try-args', class: 'code', rows: 5, spellcheck: false });
  const out = h('pre', { id: 'try-result', class: 'result', tabindex: '0', 'aria-live': 'polite' });
  const bar = h('progress', { id: 'try-bar', hidden: true });
  const steps = h('ol', { id: 'try-progress', class: 'progress-steps', 'aria-live': 'polite' });
  const progressHead = h('h3', { hidden: true }, 'Progress'); // shown once a call reports some
  function fillNames() {
    replace(target, kinds[kind.value].map((n) => h('option', { value: n }, n)));
  }
  function sample() {
    if (kind.value === 'tool') {
      const t = (mcp.tools || []).find((x) => x.name === target.value);
      args.value = JSON.stringify(example(t && t.inputSchema), null, 2);
    } else if (kind.value === 'prompt') {
      const p = (mcp.prompts || []).find((x) => x.name === target.value);
      args.value = JSON.stringify(Object.fromEntries(((p && p.arguments) || []).map((a) => [a.name, ''])), null, 2);
    } else args.value = '';
    args.disabled = kind.value === 'resource';
  }
  async function run(e) {
    e.preventDefault();
    const call = { server: server.name, [kind.value]: target.value };
    if (!args.disabled && args.value.trim()) {
      try { call.arguments = JSON.parse(args.value); } catch (err) {
        out.className = 'result error';
        out.textContent = 'The arguments are not JSON: ' + err.message;
        return;
      }
    }
    out.className = 'result';
    out.textContent = 'Calling…';
    replace(steps);
    bar.hidden = progressHead.hidden = true;
    // A tool's progress is shown as it comes: a bar when the server says of how much, and
    // each step's line.
    const heard = (p) => {
      bar.hidden = progressHead.hidden = false;
      if (p.total > 0) { bar.max = p.total; bar.value = p.progress; } else bar.removeAttribute('value');
      steps.append(h('li', {}, (p.total > 0 ? p.progress + ' of ' + p.total : String(p.progress)) + (p.message ? ': ' + p.message : '')));
    };
    try {
      const r = kind.value === 'tool' ? await streamTool('call_server', call, heard) : await tool('call_server', call);
      const answer = JSON.parse(r.text);
      out.className = 'result' + (answer.error || (answer.result && answer.result.isError) ? ' error' : '');
      out.textContent = JSON.stringify(answer.error || answer.result, null, 2);
    } catch (err) {
      out.className = 'result error';
      out.textContent = err.message;
    }
  }
  replace(panel, h('form', { class: 'try', onsubmit: run },
    h('div', { class: 'field' }, h('label', { for: 'try-kind' }, 'Kind'), kind),
    h('div', { class: 'field' }, h('label', { for: 'try-name' }, 'Name'), target),
    h('div', { class: 'field' }, h('label', { for: 'try-args' }, 'Arguments (JSON)'), args),
    h('div', { class: 'form-actions' }, h('button', { type: 'submit', class: 'primary', id: 'try-run' }, 'Run'))),
  progressHead, bar, steps, h('h3', {}, 'Answer'), out);
  fillNames();
  sample();
  return null;
}
