// Drives the calendar-mock sample with the official TypeScript SDK client: URL-mode
// elicitation (MCP 2025-11-25). The client opens (pretends to open) the link and answers
// accept, decline or cancel; an accepted link is followed by notifications/elicitation/complete;
// list_events answers -32042 until its sign-in is done, then the retried call passes; a client
// that declares form mode only is never sent a link. Run by samples/e2e/url_elicit_test.go as
// `node url-elicit-client.mjs <base-url>`. Exits 0 after printing one summary line; on any
// mismatch prints the failing checks and exits 1.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';

// How long to wait for something that is bound to happen: a deadline for a failure, never a
// window a check depends on.
const EVENTUALLY_MS = 15000;
const LINK = 'https://calendar.example.com/connect';

const base = process.argv[2];
if (!base) {
  console.error('usage: node url-elicit-client.mjs <base-url>');
  process.exit(2);
}

// linkClient answers every elicitation with the next action of its script and records what it
// was asked and which elicitations it heard were completed.
async function linkClient(modes) {
  const client = new Client({ name: 'octo-e2e-url', version: '1' }, { capabilities: { elicitation: modes } });
  client.asked = [];
  client.actions = [];
  client.completed = new Map(); // elicitationId → resolve, or true once heard
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    client.asked.push(req.params);
    return { action: client.actions.shift() ?? 'cancel' };
  });
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => {
    const id = n.params.elicitationId;
    const waiting = client.completed.get(id);
    client.completed.set(id, true);
    if (typeof waiting === 'function') waiting();
  });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', base)));
  return client;
}

// heard waits for the completion notification of id.
function heard(client, id) {
  if (client.completed.get(id) === true) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no notifications/elicitation/complete for ${id}`)), EVENTUALLY_MS);
    client.completed.set(id, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

const text = (res) => res.content.map((c) => c.text).join('\n');

const links = await linkClient({ url: {} });
const formOnly = await linkClient({ form: {} });

const checks = [
  ['an accepted link is answered, and its completion notified with the same elicitationId', async () => {
    links.actions.push('accept');
    const res = await links.callTool({ name: 'connect_calendar', arguments: { user: 'ana' } });
    assert.deepEqual(res, { content: [{ type: 'text', text: 'Calendar connected for ana (accept).' }] });
    const asked = links.asked.at(-1);
    assert.equal(asked.mode, 'url');
    assert.equal(asked.url, `${LINK}?user=ana`);
    assert.equal(asked.message, 'Sign in to your calendar provider to connect it, ana.');
    assert.match(asked.elicitationId, /^[0-9a-f]{32}$/);
    assert.equal(asked.requestedSchema, undefined);
    await heard(links, asked.elicitationId);
  }],
  ['a decline is a failed call with the onDecline text', async () => {
    links.actions.push('decline');
    const res = await links.callTool({ name: 'connect_calendar', arguments: { user: 'bo' } });
    assert.deepEqual(res, { content: [{ type: 'text', text: 'bo chose not to connect a calendar.' }], isError: true });
  }],
  ['a cancel is a failed call with the onCancel text', async () => {
    links.actions.push('cancel');
    const res = await links.callTool({ name: 'connect_calendar', arguments: { user: 'cy' } });
    assert.deepEqual(res, {
      content: [{ type: 'text', text: 'Connecting the calendar was dismissed; ask again later.' }],
      isError: true,
    });
  }],
  ['list_events is -32042 until the sign-in is done, then the retry answers', async () => {
    const asked = links.asked.length;
    const err = await links.callTool({ name: 'list_events', arguments: {} }).then(
      (res) => assert.fail(`answered ${JSON.stringify(res)}, want -32042`),
      (e) => e,
    );
    assert.ok(err instanceof UrlElicitationRequiredError, `got ${err}`);
    assert.equal(err.code, -32042);
    assert.equal(err.elicitations.length, 1);
    const [e] = err.elicitations;
    assert.deepEqual({ mode: e.mode, url: e.url, message: e.message }, {
      mode: 'url', url: `${LINK}?elicitation=${e.elicitationId}`, message: 'Connect your calendar first.',
    });
    assert.match(e.elicitationId, /^[0-9a-f]{32}$/);
    await heard(links, e.elicitationId);
    const res = await links.callTool({ name: 'list_events', arguments: {} });
    assert.deepEqual(res, { content: [{ type: 'text', text: '{"events": [{"title": "Stand-up", "at": "09:30"}]}' }] });
    assert.equal(links.asked.length, asked, 'the -32042 form asks nothing during the call');
  }],
  ['a client that declares form mode only is not sent the link', async () => {
    for (const name of ['connect_calendar', 'list_events']) {
      const res = await formOnly.callTool({ name, arguments: { user: 'ana' } });
      assert.equal(res.isError, true, `${name}: ${JSON.stringify(res)}`);
      assert.match(text(res), /did not declare elicitation\.url/);
    }
    assert.deepEqual(formOnly.asked, []);
  }],
];

const failures = [];
let passed = 0;
for (const [name, check] of checks) {
  try {
    await check();
    passed++;
  } catch (err) {
    failures.push(`${name}: ${err?.stack ?? err}`);
  }
}
await links.close();
await formOnly.close();
if (failures.length > 0) {
  for (const f of failures) console.error(`FAIL ${f}`);
  console.error(`${passed} of ${checks.length} checks passed`);
  process.exit(1);
}
console.log(`ok: TypeScript SDK client, ${passed} URL elicitation checks passed against Calendar mock`);
