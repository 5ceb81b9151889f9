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
