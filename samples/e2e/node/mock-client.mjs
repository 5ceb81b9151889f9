// Drives the weather-mock sample with the official TypeScript SDK client:
// Streamable HTTP on /mcp, the legacy SSE transport on /sse, and a slow
// tool followed by progress and then cancelled. Every answer is checked
// exactly. Run by samples/e2e/mock_tssdk_test.go as
// `node mock-client.mjs <base-url>`. Exits 0 after printing one summary
// line; on any mismatch prints the failing check and the HTTP exchanges to
// stderr and exits 1.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// The SDK asks for the newest revision and the mock speaks it.
const VERSION = '2025-11-25';
const SERVER = { name: 'Weather mock', version: '1.0.0' };
const INSTRUCTIONS = 'Use get_weather for the weather in a city.';
// slow_report waits this long; a cancelled call must end well before.
const SLOW_REPORT_MS = 5000;
// How long to wait for something that is bound to happen: a deadline for a
// failure, never a window the check depends on, so a loaded machine that is
// merely slow does not fail it.
const EVENTUALLY_MS = 15000;

const base = process.argv[2];
if (!base) {
  console.error('usage: node mock-client.mjs <base-url>');
  process.exit(2);
}

// wire records every HTTP exchange of the real transports, including when a
// streamed answer ended and what it carried, so the checks can see what the
// server did and not only what the client made of it.
const wire = [];
function recordingFetch(label) {
  return async (url, init = {}) => {
    const headers = new Headers(init.headers);
    const entry = {
      label,
      method: init.method ?? 'GET',
      path: new URL(url).pathname,
      body: typeof init.body === 'string' ? init.body : '',
      rpc: rpcOf(init.body),
      sentSession: headers.get('mcp-session-id'),
      sentVersion: headers.get('mcp-protocol-version'),
      sentLastEventId: headers.get('last-event-id'),
      received: '',
    };
    wire.push(entry);
    const res = await fetch(url, init);
    entry.status = res.status;
    entry.type = res.headers.get('content-type');
    entry.gotSession = res.headers.get('mcp-session-id');
    if (!res.body) return res;
    const decoder = new TextDecoder();
    const tap = new TransformStream({
      transform(chunk, ctl) {
        entry.received += decoder.decode(chunk, { stream: true });
        ctl.enqueue(chunk);
      },
      flush() {
        entry.ended = Date.now();
      },
    });
    return new Response(res.body.pipeThrough(tap), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

function rpcOf(body) {
  try {
    const msg = typeof body === 'string' ? JSON.parse(body) : {};
    return { method: msg.method ?? '', id: msg.id, params: msg.params };
  } catch {
    return { method: '' };
  }
}

function wireText() {
  return wire
    .map((e) => `  [${e.label}] ${e.method} ${e.path} ${e.rpc?.method ?? ''} -> ${e.status ?? 'no answer'} ${e.type ?? ''}` +
      ` (sent session ${e.sentSession}, version ${e.sentVersion}, Last-Event-ID ${e.sentLastEventId}; got session ${e.gotSession}; ended ${e.ended ? 'yes' : 'no'})` +
      (e.received ? `\n      ${e.received.slice(0, 400).replaceAll('\n', '\\n')}` : ''))
    .join('\n');
}

async function waitFor(predicate, ms) {
  for (const deadline = Date.now() + ms; !predicate(); ) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 10));
  }
  return true;
}

async function rejection(promise) {
  try {
    return { value: await promise };
  } catch (err) {
    return { err };
  }
}

function newClient(name) {
  const client = new Client({ name, version: '1' });
  client.errors = [];
  client.onerror = (err) => client.errors.push(err);
  return client;
}

const WEATHER_TOOLS = [
  {
    name: 'get_weather',
    description: 'The current weather in a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  { name: 'slow_report', description: 'A report that takes a while.', inputSchema: { type: 'object' } },
];

const sdkVersion = JSON.parse(
  await readFile(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;

const http = newClient('octo-e2e-mock');
const httpTransport = new StreamableHTTPClientTransport(new URL('/mcp', base), { fetch: recordingFetch('http') });
const sse = newClient('octo-e2e-mock-sse');
const sseTransport = new SSEClientTransport(new URL('/sse', base), { fetch: recordingFetch('sse') });

const streamableChecks = [
  ['the handshake names the server, its instructions and settles on the newest revision', async () => {
    assert.deepEqual(http.getServerVersion(), SERVER);
    assert.equal(http.getInstructions(), INSTRUCTIONS);
    assert.equal(httpTransport.protocolVersion, VERSION);
    assert.deepEqual(http.getServerCapabilities(), {
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      prompts: { listChanged: true },
      logging: {},
      completions: {},
    });
    assert.match(httpTransport.sessionId ?? '', /^[\x21-\x7E]+$/, 'a visible-ASCII Mcp-Session-Id');
  }],
  ['ping answers an empty result', async () => {
    assert.deepEqual(await http.ping(), {});
  }],
  ['both tools are listed with their schemas, the empty one as a bare object', async () => {
    assert.deepEqual(await http.listTools(), { tools: WEATHER_TOOLS });
  }],
  ['the resource list holds the readme', async () => {
    assert.deepEqual(await http.listResources(), {
      resources: [{ uri: 'docs://readme', name: 'readme', mimeType: 'text/markdown' }],
    });
  }],
  ['the template list holds the station', async () => {
    assert.deepEqual(await http.listResourceTemplates(), {
      resourceTemplates: [{ uriTemplate: 'stations://{name}', name: 'station', mimeType: 'text/plain' }],
    });
  }],
  ['the prompt list holds plan_trip and its required city', async () => {
    assert.deepEqual(await http.listPrompts(), {
      prompts: [{ name: 'plan_trip', description: 'Plan a day out', arguments: [{ name: 'city', required: true }] }],
    });
  }],
  ['get_weather for Lisbon answers the JSON text exactly as written', async () => {
    assert.deepEqual(await http.callTool({ name: 'get_weather', arguments: { city: 'Lisbon' } }), {
      content: [{ type: 'text', text: '{"city": "Lisbon", "forecast": "sunny", "temperatureC": 21}' }],
    });
  }],
  ['a client-sent {{tag}} comes back as text, not filled in', async () => {
    const res = await http.callTool({ name: 'get_weather', arguments: { city: '{{units}}' } });
    assert.equal(res.content[0].text, '{"city": "{{units}}", "forecast": "sunny", "temperatureC": 21}');
  }],
  ['get_weather without a city is a failed call naming it', async () => {
    const res = await http.callTool({ name: 'get_weather', arguments: {} });
    assert.equal(res.isError, true, 'isError');
    assert.equal(res.content.length, 1, 'one content item');
    assert.equal(res.content[0].type, 'text');
    assert.match(res.content[0].text, /city/);
  }],
  ['get_weather with a numeric city is a failed call naming it', async () => {
    const res = await http.callTool({ name: 'get_weather', arguments: { city: 42 } });
    assert.equal(res.isError, true, 'isError');
    assert.match(res.content[0].text, /city/);
  }],
  ['an unknown tool is JSON-RPC error -32602 Unknown tool', async () => {
    const { value, err } = await rejection(http.callTool({ name: 'get_wether', arguments: {} }));
    assert.ok(err, `want an error, got ${JSON.stringify(value)}`);
    assert.equal(err.code, -32602, `code of ${err.message}`);
    assert.match(err.message, /Unknown tool/);
    assert.match(err.message, /get_wether/);
  }],
  ['the readme reads as written with its MIME type', async () => {
    assert.deepEqual(await http.readResource({ uri: 'docs://readme' }), {
      contents: [{ uri: 'docs://readme', mimeType: 'text/markdown', text: '# Weather service' }],
    });
  }],
  ['stations://Oslo reads through the template with the URI asked for', async () => {
    assert.deepEqual(await http.readResource({ uri: 'stations://Oslo' }), {
      contents: [{ uri: 'stations://Oslo', mimeType: 'text/plain', text: 'Station Oslo: 21 °C' }],
    });
  }],
  ['an unknown resource is -32002 Resource not found', async () => {
    const { value, err } = await rejection(http.readResource({ uri: 'docs://nothing' }));
    assert.ok(err, `want an error, got ${JSON.stringify(value)}`);
    assert.equal(err.code, -32002, `code of ${err.message}`);
  }],
  ['plan_trip for Porto is one user message naming Porto', async () => {
    assert.deepEqual(await http.getPrompt({ name: 'plan_trip', arguments: { city: 'Porto' } }), {
      description: 'Plan a day out',
      messages: [{ role: 'user', content: { type: 'text', text: 'Plan a day in Porto that suits the weather.' } }],
    });
  }],
  ['plan_trip without a city is -32602 naming it', async () => {
    const { value, err } = await rejection(http.getPrompt({ name: 'plan_trip', arguments: {} }));
    assert.ok(err, `want an error, got ${JSON.stringify(value)}`);
    assert.equal(err.code, -32602, `code of ${err.message}`);
    assert.match(err.message, /city/);
  }],
  ['slow_report reports progress, and aborting it rejects at once and ends its stream', slowReportCancelled],
  ['the SDK\'s resume of the cancelled call\'s stream is answered without an error', resumeOfCancelledStream],
  ['the session still answers after the cancelled call', async () => {
    const res = await http.callTool({ name: 'get_weather', arguments: { city: 'Nice' } });
    assert.equal(res.content[0].text, '{"city": "Nice", "forecast": "sunny", "temperatureC": 21}');
  }],
  ['every request after initialize carried the session and the negotiated revision, and a GET stream is open', async () => {
    const ours = wire.filter((e) => e.label === 'http');
    const init = ours.findIndex((e) => e.rpc?.method === 'initialize');
    assert.equal(ours[init]?.status, 200, 'initialize status');
    assert.equal(ours[init].gotSession, httpTransport.sessionId, 'session id from initialize');
    for (const e of ours.slice(init + 1)) {
      assert.equal(e.sentSession, httpTransport.sessionId, `Mcp-Session-Id on ${e.method} ${e.rpc?.method}`);
      assert.equal(e.sentVersion, VERSION, `MCP-Protocol-Version on ${e.method} ${e.rpc?.method}`);
    }
    const gets = ours.filter((e) => e.method === 'GET' && !e.sentLastEventId);
    assert.equal(gets.length, 1, 'one GET stream');
    assert.equal(gets[0].status, 200, 'GET status');
    assert.match(gets[0].type ?? '', /^text\/event-stream/, 'GET content type');
    assert.equal(gets[0].ended, undefined, 'the GET stream stays open');
    assert.deepEqual(http.errors.map(String), [], 'errors reported by the client');
  }],
  ['ending the session with DELETE makes its id unknown (404)', async () => {
    const id = httpTransport.sessionId;
    await httpTransport.terminateSession();
    const del = wire.filter((e) => e.label === 'http' && e.method === 'DELETE');
    assert.equal(del.length, 1, 'one DELETE');
    assert.ok(del[0].status >= 200 && del[0].status < 300, `DELETE status ${del[0].status}`);
    const after = await fetch(new URL('/mcp', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': VERSION },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
    });
    await after.body?.cancel();
    assert.equal(after.status, 404, 'a request on the ended session');
  }],
];

// slowReportCancelled calls the 5 s tool with a progress token, aborts it
// after the first progress notification and checks the client side (the
// call rejects with the abort reason) and the server side (it got
// notifications/cancelled, closed the call's stream before the tool's 5 s
// were up and never sent its result).
async function slowReportCancelled() {
  const progress = [];
  const abort = new AbortController();
  const started = Date.now();
  const call = rejection(http.callTool({ name: 'slow_report', arguments: {} }, undefined, {
    signal: abort.signal,
    onprogress: (p) => progress.push(p),
  }));
  assert.ok(await waitFor(() => progress.length > 0, EVENTUALLY_MS), 'no progress notification');
  abort.abort('user stopped the report');
  const { value, err } = await call;
  assert.ok(err, `the cancelled call answered ${JSON.stringify(value)}`);
  assert.match(err.message, /user stopped the report/);
  assert.equal(typeof progress[0].progress, 'number', `progress ${JSON.stringify(progress[0])}`);

  const callEntry = wire.find((e) => e.label === 'http' && e.rpc?.params?.name === 'slow_report');
  const token = callEntry?.rpc?.params?._meta?.progressToken;
  assert.equal(typeof token, 'number', 'the SDK sent a numeric progress token');
  assert.ok(callEntry.received.includes(`"progressToken":${token}`), `progress echoes token ${token}: ${callEntry.received}`);
  const cancel = wire.find((e) => e.label === 'http' && e.rpc?.method === 'notifications/cancelled');
  assert.ok(cancel, 'notifications/cancelled was sent');
  assert.equal(cancel.rpc.params.requestId, callEntry.rpc.id, 'cancelled names the call');
  // The SDK sends it without waiting for the answer.
  assert.ok(await waitFor(() => cancel.status !== undefined, EVENTUALLY_MS), 'notifications/cancelled got no answer');
  assert.equal(cancel.status, 202, 'notifications/cancelled status');
  assert.ok(await waitFor(() => callEntry.ended, EVENTUALLY_MS), 'the server never closed the call\'s stream');
  // A server that let the call run would close its stream only once the
  // tool's time was up: the cancel has to have ended it before.
  assert.ok(callEntry.ended - started < SLOW_REPORT_MS,
    `the server closed the call's stream ${callEntry.ended - started} ms after the call, when the tool was done anyway`);
  assert.ok(!callEntry.received.includes('Done.'), `the cancelled call's result was sent: ${callEntry.received}`);
}

// resumeOfCancelledStream covers what the SDK does next: when the cancelled
// call's stream carried an event id (a 2025-11-25 priming event) and ended
// without an answer, the SDK resumes it with GET + Last-Event-ID after the
// server's retry hint (SEP-1699). That GET must get a stream or 405 ("no
// stream here"), not an error the client reports and retries. Neither
// leads to another resume: the SDK gives up on a 405 at once, and a
// stream still open has not ended to be resumed.
async function resumeOfCancelledStream() {
  const callEntry = wire.find((e) => e.label === 'http' && e.rpc?.params?.name === 'slow_report');
  const lastId = [...callEntry.received.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]).at(-1);
  if (!lastId) return; // nothing to resume: the SDK does not try
  const isResume = (e) => e.label === 'http' && e.method === 'GET' && e.sentLastEventId === lastId;
  assert.ok(await waitFor(() => wire.some((e) => isResume(e) && e.status !== undefined), EVENTUALLY_MS),
    `the SDK did not resume with Last-Event-ID ${lastId}`);
  const resumes = wire.filter(isResume);
  assert.ok([200, 405].includes(resumes[0].status),
    `GET with Last-Event-ID ${lastId} answered ${resumes[0].status} ${resumes[0].received}`);
  assert.ok(resumes[0].status === 405 || !resumes[0].ended, 'the resumed stream ended, so the SDK would resume again');
  assert.equal(resumes.length, 1, `resume GETs: ${resumes.map((e) => e.status).join(', ')}`);
  assert.deepEqual(http.errors.map(String), [], 'errors reported by the client');
}

const sseChecks = [
  ['the SSE transport opened /sse, got its endpoint and initialized', async () => {
    assert.deepEqual(sse.getServerVersion(), SERVER);
    assert.equal(sse.getInstructions(), INSTRUCTIONS);
    const ours = wire.filter((e) => e.label === 'sse');
    assert.equal(ours[0].method, 'GET', 'first exchange');
    assert.equal(ours[0].path, '/sse');
    assert.equal(ours[0].status, 200, 'GET /sse status');
    assert.match(ours[0].received, /^event: endpoint\ndata: \/messages\?sessionId=\S+\n/m, 'endpoint event');
  }],
  ['tools/list over SSE lists both tools', async () => {
    assert.deepEqual(await sse.listTools(), { tools: WEATHER_TOOLS });
  }],
  ['get_weather over SSE answers on the stream', async () => {
    assert.deepEqual(await sse.callTool({ name: 'get_weather', arguments: { city: 'Rome' } }), {
      content: [{ type: 'text', text: '{"city": "Rome", "forecast": "sunny", "temperatureC": 21}' }],
    });
  }],
  ['each POST went to /messages, was accepted with 202 and the answers came on the stream', async () => {
    const ours = wire.filter((e) => e.label === 'sse');
    const posts = ours.filter((e) => e.method === 'POST');
    // The answer to a POST can arrive on the stream before the 202 does.
    assert.ok(await waitFor(() => posts.every((e) => e.status !== undefined), EVENTUALLY_MS), 'a POST got no answer');
    assert.deepEqual(posts.map((e) => e.rpc.method), ['initialize', 'notifications/initialized', 'tools/list', 'tools/call']);
    for (const e of posts) {
      assert.equal(e.path, '/messages', `path of ${e.rpc.method}`);
      assert.equal(e.status, 202, `status of ${e.rpc.method}`);
    }
    assert.match(ours[0].received, /"protocolVersion":"2025-11-25"/, 'initialize answer on the stream');
    assert.match(ours[0].received, /\\"Rome\\"/, 'tools/call answer on the stream');
    assert.deepEqual(sse.errors.map(String), [], 'errors reported by the client');
  }],
];

// Every check runs even after one fails, so one run reports every problem;
// a failed connect skips that transport's checks.
const failures = [];
let passed = 0;
async function runAll(label, client, transport, checks) {
  try {
    await client.connect(transport);
  } catch (err) {
    failures.push(`connect over ${label}: ${err?.stack ?? err}`);
    return;
  }
  for (const [name, check] of checks) {
    try {
      await check();
      passed++;
    } catch (err) {
      failures.push(`${name}: ${err?.stack ?? err}`);
    }
  }
  await client.close().catch((err) => failures.push(`close ${label}: ${err}`));
}

await runAll('Streamable HTTP', http, httpTransport, streamableChecks);
await runAll('SSE', sse, sseTransport, sseChecks);
const total = streamableChecks.length + sseChecks.length;
if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${f}`);
  console.error(`${passed} of ${total} checks passed\nwire:\n${wireText()}`);
  process.exit(1);
}
console.log(`ok: @modelcontextprotocol/sdk ${sdkVersion} client, ${passed} checks passed against Weather mock over Streamable HTTP (${VERSION}) and SSE`);
