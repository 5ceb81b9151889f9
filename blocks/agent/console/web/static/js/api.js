// The console API: the browser sends the session cookie the login link was traded for with
// every call; the page holds no secret of its own.

export class APIError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : 'HTTP ' + status);
    this.status = status;
    this.problems = (body && body.problems) || [];
  }
}

// api calls the console API; body is JSON, or text for the YAML endpoints.
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (typeof body === 'string') {
    init.body = body;
    init.headers['Content-Type'] = 'text/plain; charset=utf-8';
  } else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers['Content-Type'] = 'application/json';
  }
  const resp = await fetch(path, init);
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = { error: text }; }
  if (!resp.ok) throw new APIError(resp.status, data);
  return data;
}

// tool runs an agent tool as the user; an isError answer is thrown with its text.
export async function tool(name, args) {
  const r = await api('POST', '/api/call', { tool: name, arguments: args || {} });
  if (r.isError) throw new APIError(422, { error: r.text });
  return r;
}

// streamTool runs an agent tool as the user, hearing its progress: onProgress gets each
// {progress, total, message} as the call reports it, then the answer is returned as tool's is.
export async function streamTool(name, args, onProgress) {
  const resp = await fetch('/api/call', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ tool: name, arguments: args || {}, progress: true }) });
  if (!resp.ok) {
    let body = null;
    try { body = await resp.json(); } catch { /* not JSON */ }
    throw new APIError(resp.status, body);
  }
  const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new APIError(502, { error: 'the call ended without an answer' });
    buf += value;
    let end;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let ev = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) ev = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      const v = data ? JSON.parse(data) : null;
      if (ev === 'progress') onProgress(v);
      else if (ev === 'error') throw new APIError(v.status, v);
      else if (ev === 'result') {
        reader.cancel().catch(() => {});
        if (v.isError) throw new APIError(422, { error: v.text });
        return v;
      }
    }
  }
}

// events opens the live stream with the filter q (an object of query parameters).
export function events(q = {}) {
  const params = new URLSearchParams(Object.fromEntries(Object.entries(q).filter(([, v]) => v)));
  return new EventSource('/api/events?' + params);
}

// download fetches path and saves it as name.
export async function download(path, name) {
  const resp = await fetch(path);
  if (!resp.ok) throw new APIError(resp.status, null);
  const url = URL.createObjectURL(await resp.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
