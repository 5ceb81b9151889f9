// Calls every tool of a router written by `octo import openapi` with the official TypeScript SDK
// client, over Streamable HTTP: the tools listed are the ones expected, each call answers
// without isError, and a tool that declares an outputSchema answers structuredContent. Run by
// samples/e2e/openapi_tssdk_test.go as `node openapi-client.mjs <url> <calls.json>`, where
// calls.json is [{"name": …, "arguments": {…}}, …]. Prints one summary line and exits 0; on a
// mismatch prints the failing check and exits 1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, callsFile] = process.argv.slice(2);
if (!url || !callsFile) {
  console.error('usage: node openapi-client.mjs <url> <calls.json>');
  process.exit(2);
}
const calls = JSON.parse(readFileSync(callsFile, 'utf8'));
const client = new Client({ name: 'octo-e2e-openapi', version: '1' });
try {
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const c of calls) assert.ok(byName.has(c.name), `tool ${c.name} is not listed (listed: ${[...byName.keys()].join(', ')})`);
  let structured = 0;
  for (const c of calls) {
    const res = await client.callTool({ name: c.name, arguments: c.arguments });
    assert.notEqual(res.isError, true, `${c.name} answered an error: ${JSON.stringify(res.content)}`);
    if (byName.get(c.name).outputSchema) {
      assert.equal(typeof res.structuredContent, 'object', `${c.name} declares an outputSchema but answered no structuredContent`);
      structured++;
    }
  }
  console.log(`ok: ${calls.length} tools called, ${structured} with structured content, ${tools.length} listed`);
} catch (e) {
  console.error(`FAIL ${e.message}`);
  process.exitCode = 1;
} finally {
  await client.close();
}
