// Drives the mcp-router sample with the official TypeScript SDK client over
// Streamable HTTP and checks every answer exactly. Run by
// samples/e2e/router_tssdk_test.go as `node router-client.mjs <base-url>`.
// Exits 0 after printing one summary line; on any mismatch prints the failing
// check and the HTTP exchanges to stderr and exits 1.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

// The newest revision the stateless router speaks; the SDK asks for a newer one.
const ROUTER_VERSION = '2025-06-18';
const ASSIST_DESCRIPTION = 'Prime an assistant to help a user in a given city.';

const base = process.argv[2];
if (!base) {
  console.error('usage: node router-client.mjs <base-url>');
  process.exit(2);
}

// wire records every HTTP exchange of the real transport, so the checks can
// see how it coped with a server that gives no session id and refuses GET.
const wire = [];
async function recordingFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  const entry = {
    method: init.method ?? 'GET',
    rpc: rpcMethod(init.body),
    sentSession: headers.get('mcp-session-id'),
    sentVersion: headers.get('mcp-protocol-version'),
  };
  wire.push(entry);
  const res = await fetch(url, init);
  entry.status = res.status;
  entry.gotSession = res.headers.get('mcp-session-id');
  entry.allow = res.headers.get('allow');
  return res;
}

function rpcMethod(body) {
  try {
    return typeof body === 'string' ? JSON.parse(body).method ?? '' : '';
  } catch {
    return '';
  }
}

function wireText() {
  return wire
    .map((e) => `  ${e.method} ${e.rpc ?? ''} -> ${e.status ?? 'no answer'} (sent session ${e.sentSession}, version ${e.sentVersion}; got session ${e.gotSession}, Allow ${e.allow})`)
    .join('\n');
}

async function waitFor(predicate, ms) {
  for (const deadline = Date.now() + ms; !predicate(); ) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
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

const guide = await readFile(new URL('../../mcp-router/guide.md', import.meta.url), 'utf8');
const sdkVersion = JSON.parse(
  await readFile(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url), 'utf8'),
).version;

const clientErrors = [];
const client = new Client({ name: 'octo-e2e', version: '1' });
client.onerror = (err) => clientErrors.push(err);
const transport = new StreamableHTTPClientTransport(new URL('/mcp', base), { fetch: recordingFetch });

const checks = [
  ['the handshake names the server and settles on the router\'s newest revision', async () => {
    assert.deepEqual(client.getServerVersion(), { name: 'weather-tools', version: '1.0.0' });
    assert.equal(transport.protocolVersion, ROUTER_VERSION);
    assert.deepEqual(client.getServerCapabilities(), { tools: {}, resources: {}, prompts: {} });
  }],
  ['the tool list carries title, annotations and both schemas', async () => {
    assert.deepEqual(await client.listTools(), {
      tools: [{
        name: 'forecast',
        title: 'Weather forecast',
        description: 'Return a short weather forecast for a city.',
        inputSchema: { type: 'object', required: ['city'], properties: { city: { type: 'string' } } },
        outputSchema: { type: 'object', required: ['city', 'summary'], properties: { city: { type: 'string' }, summary: { type: 'string' } } },
        annotations: { readOnlyHint: true, openWorldHint: true },
      }],
    });
  }],
  ['a forecast for Lisbon returns the JSON as text and as structured content', async () => {
    assert.deepEqual(await client.callTool({ name: 'forecast', arguments: { city: 'Lisbon' } }), {
      content: [{ type: 'text', text: '{"city":"Lisbon","summary":"Sunny, 24C"}' }],
      structuredContent: { city: 'Lisbon', summary: 'Sunny, 24C' },
    });
  }],
  ['a city that is not a string is a tool error naming the field', async () => {
    const res = await client.callTool({ name: 'forecast', arguments: { city: 42 } });
    assert.equal(res.isError, true, 'isError');
    assert.equal(res.structuredContent, undefined, 'structuredContent on an error');
    assert.equal(res.content.length, 1, 'one content block');
    assert.equal(res.content[0].type, 'text');
    assert.match(res.content[0].text, /"city"/);
  }],
  ['the resource list holds the guide', async () => {
    assert.deepEqual(await client.listResources(), {
      resources: [{ uri: 'octo://guide', name: 'guide', description: 'Operator guide for the weather tools.', mimeType: 'text/markdown' }],
    });
  }],
  ['the template list holds the city briefing', async () => {
    assert.deepEqual(await client.listResourceTemplates(), {
      resourceTemplates: [{ uriTemplate: 'octo://city/{city}', name: 'city-briefing', description: 'A briefing for any city.', mimeType: 'text/markdown' }],
    });
  }],
  ['the guide reads as the markdown file', async () => {
    assert.deepEqual(await client.readResource({ uri: 'octo://guide' }), {
      contents: [{ uri: 'octo://guide', mimeType: 'text/markdown', text: guide }],
    });
  }],
  ['a percent-encoded city reads back decoded', async () => {
    const uri = 'octo://city/S%C3%A3o%20Paulo';
    assert.deepEqual(await client.readResource({ uri }), {
      contents: [{ uri, mimeType: 'text/markdown', text: '# São Paulo\n\nA city profile for São Paulo. Ask the forecast tool for today\'s weather there.\n' }],
    });
  }],
  ['the prompt list describes assist and its required argument', async () => {
    assert.deepEqual(await client.listPrompts(), {
      prompts: [{
        name: 'assist',
        description: ASSIST_DESCRIPTION,
        arguments: [{ name: 'city', description: "The user's city.", required: true }],
      }],
    });
  }],
  ['assist for Porto is one user message naming Porto', async () => {
    assert.deepEqual(await client.getPrompt({ name: 'assist', arguments: { city: 'Porto' } }), {
      description: ASSIST_DESCRIPTION,
      messages: [{
        role: 'user',
        content: { type: 'text', text: 'You are helping a user in Porto. Offer to fetch the forecast with the\n`forecast` tool, and keep answers short and friendly.\n' },
      }],
    });
  }],
  ['assist without a city is an invalid-params error naming it', async () => {
    const { value, err } = await rejection(client.getPrompt({ name: 'assist' }));
    assert.ok(err, `want an error, got ${JSON.stringify(value)}`);
    assert.equal(err.code, -32602, `code of ${err.message}`);
    assert.match(err.message, /city/);
  }],
  ['the stateless transport is used without a session and GET is refused with 405', async () => {
    // The transport opens its GET stream in the background after the
    // initialized notification; give it a moment to have happened.
    await waitFor(() => wire.some((e) => e.method === 'GET' && e.status !== undefined), 5000);
    for (const e of wire) {
      assert.ok(!e.sentSession && !e.gotSession, `a session id crossed the wire: ${JSON.stringify(e)}`);
    }
    const gets = wire.filter((e) => e.method === 'GET');
    assert.equal(gets.length, 1, 'one GET');
    assert.equal(gets[0].status, 405, 'GET status');
    assert.equal(gets[0].allow, 'POST', 'Allow on the 405');
    const init = wire.findIndex((e) => e.rpc === 'initialize');
    assert.equal(wire[init]?.status, 200, 'initialize status');
    for (const e of wire.slice(init + 1).filter((e) => e.method === 'POST')) {
      assert.equal(e.sentVersion, ROUTER_VERSION, `MCP-Protocol-Version on ${e.rpc}`);
    }
    assert.equal(transport.sessionId, undefined, 'transport session id');
    assert.deepEqual(clientErrors.map(String), [], 'errors reported by the client');
  }],
];

let current = 'connect';
try {
  await client.connect(transport);
  for (const [name, check] of checks) {
    current = name;
    await check();
  }
  current = 'close';
  await client.close();
} catch (err) {
  console.error(`FAIL ${current}: ${err?.stack ?? err}`);
  console.error(`wire:\n${wireText()}`);
  await client.close().catch(() => {});
  process.exit(1);
}
console.log(`ok: @modelcontextprotocol/sdk ${sdkVersion} client, ${checks.length} checks passed against weather-tools over ${ROUTER_VERSION}`);
