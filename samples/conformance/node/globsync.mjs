// Preloaded with `node --import ./globsync.mjs` so the conformance suite
// (0.1.16 imports `globSync` from "fs", added in Node 22) loads on Node 20.6+.
// On a Node that has fs.globSync this file does nothing.
//
// A builtin's ESM exports are fixed when Node starts, so setting fs.globSync
// is not enough: a module hook answers `import ... from "fs"` with a small
// module that re-exports node:fs plus the globSync below.
import fs from 'node:fs';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

const shimmed = 'octo-globsync:fs';

// globSync walks cwd and returns the relative paths matching pattern: `**`
// spans folders, `*` and `?` stay within one name. Enough for the suite's
// `**/checks.json`.
export function globSync(pattern, options = {}) {
  const cwd = String(options.cwd ?? process.cwd());
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  const res = patterns.map(toRegExp);
  const out = [];
  const walk = (rel) => {
    let entries;
    try {
      entries = fs.readdirSync(path.join(cwd, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (res.some((re) => re.test(p))) out.push(p.split('/').join(path.sep));
      if (e.isDirectory()) walk(p);
    }
  };
  walk('');
  return out;
}

function toRegExp(glob) {
  let src = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` is zero or more folders; a trailing `**` is anything.
      if (glob[i + 2] === '/') {
        src += '(?:.*/)?';
        i += 2;
      } else {
        src += '.*';
        i += 1;
      }
    } else if (c === '*') src += '[^/]*';
    else if (c === '?') src += '[^/]';
    else src += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${src}$`);
}

// Module hooks (they run on the loader thread).
export function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL !== shimmed) {
    return { url: shimmed, shortCircuit: true };
  }
  return next(specifier, context);
}

export function load(url, context, next) {
  if (url !== shimmed) return next(url, context);
  const source = [
    `import fs from 'node:fs';`,
    `import { globSync as shim } from ${JSON.stringify(import.meta.url)};`,
    `export * from 'node:fs';`,
    `export default fs;`,
    `export const globSync = fs.globSync ?? shim;`,
  ].join('\n');
  return { format: 'module', source, shortCircuit: true };
}

if (isMainThread && typeof fs.globSync !== 'function') {
  const { register } = await import('node:module');
  register(import.meta.url);
}
