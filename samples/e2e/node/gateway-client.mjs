// Talks to an mcp-proxy gateway with the official TypeScript SDK client, as a host app with a
// user and a model would: it declares elicitation and sampling, accepts what it is asked, and
// reports what it saw. Run by samples/e2e/gateway_test.go as
//   node gateway-client.mjs <url> full   (tools, an elicitation, sampling and progress through the gateway)
//   node gateway-client.mjs <url> list   (the tools only)
// and prints one JSON line.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [url, mode] = process.argv.slice(2);
if (!url || !['full', 'list'].includes(mode)) {
  console.error('usage: node gateway-client.mjs <url> full|list');
  process.exit(2);
}
const client = new Client({ name: 'octo-e2e-gateway', version: '1' }, { capabilities: { elicitation: {}, sampling: {} } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push(req.params.message);
  return { action: 'accept', content: { confirm: true } };
});
client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
  asked.push(req.params.messages[0].content.text);
  return { role: 'assistant', content: { type: 'text', text: 'A short summary.' }, model: 'e2e', stopReason: 'endTurn' };
});
let listChanged = 0;
client.setNotificationHandler(ToolListChangedNotificationSchema, () => { listChanged++; });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const until = async (check) => {
  for (let i = 0; i < 100 && !(await check()); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
};
const out = { tools: (await client.listTools()).tools.map((t) => t.name).sort() };
if (mode === 'full') {
  const text = (r) => r.content.map((c) => c.text).join('\n');
  out.deleted = text(await client.callTool({ name: 'files_delete_file', arguments: { path: '/tmp/x' } }));
  out.summary = text(await client.callTool({ name: 'files_summarize', arguments: { text: 'A long story.' } }));
  const progress = [];
  out.counted = text(await client.callTool({ name: 'notes_count', arguments: {} }, undefined, {
    onprogress: (p) => progress.push(p.progress),
  }));
  out.progress = progress;
  out.asked = asked;
  // An upstream's list change reaches this client, and the new tool is listed.
  await client.callTool({ name: 'notes_unlock', arguments: {} });
  await until(() => listChanged > 0);
  out.listChanged = listChanged > 0;
  out.unlocked = (await client.listTools()).tools.map((t) => t.name).includes('notes_secret');
  // A call this client gives up on is cancelled upstream too.
  try {
    await client.callTool({ name: 'notes_wait', arguments: {} }, undefined, { signal: AbortSignal.timeout(300) });
    out.waited = true;
  } catch {
    out.waited = false;
  }
  await until(async () => text(await client.callTool({ name: 'notes_cancelled', arguments: {} })) === '1');
  out.cancelledUpstream = text(await client.callTool({ name: 'notes_cancelled', arguments: {} }));
}
await client.close();
console.log(JSON.stringify(out));
