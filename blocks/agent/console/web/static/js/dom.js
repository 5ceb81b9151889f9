// Small DOM helpers: elements are built with h(), never from HTML strings, so text from
// servers, agents and traffic is always text.

// h makes an element: attrs sets properties (on* are listeners, class/for/aria-*/data-*/role
// are attributes), children are nodes or text (null and false are skipped).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class' || k === 'for' || k === 'role' || k.startsWith('aria-') || k.startsWith('data-') || k === 'tabindex')
      el.setAttribute(k, v === true ? '' : v);
    else el[k] = v;
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

// replace puts children in place of el's.
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

// copyButton copies text() to the clipboard and says so.
export function copyButton(label, text) {
  const b = h('button', { type: 'button', class: 'copy', onclick: async () => {
    try {
      await navigator.clipboard.writeText(text());
      b.textContent = 'Copied';
    } catch {
      b.textContent = 'Select and copy';
    }
    setTimeout(() => { b.textContent = label; }, 1500);
  } }, label);
  return b;
}

// notice shows a message in the live region, with optional action buttons.
export function notice(text, kind = 'info', ...actions) {
  const box = document.getElementById('notice');
  const close = h('button', { type: 'button', class: 'link', 'aria-label': 'Dismiss', onclick: () => box.replaceChildren() }, '×');
  replace(box, h('div', { class: 'notice ' + kind }, h('span', {}, text), ...actions, close));
  if (kind !== 'error' && actions.length === 0) setTimeout(() => { if (box.contains(close)) box.replaceChildren(); }, 6000);
}

export function time(t) {
  const d = new Date(t);
  return isNaN(d) ? '' : d.toLocaleTimeString([], { hour12: false }) + '.' + String(d.getMilliseconds()).padStart(3, '0');
}
