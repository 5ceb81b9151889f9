// Starts octo as an MCP client starts a server it runs as a command, with the official
// TypeScript SDK's StdioClientTransport, and checks the router's answers exactly. Run by
// samples/e2e/router_stdio_test.go as `node router-stdio-client.mjs <octo> <args...>`.
// Exits 0 after printing one summary line; on any mismatch prints the failing check and
// octo's standard error, and exits 1.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node router-stdio-client.mjs <octo> <args...>');
  process.exit(2);
}

const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
let stderr = '';
transport.stderr?.on('data', (chunk) => (stderr += chunk));
const client = new Client({ name: 'octo-e2e-stdio', version: '1' });

try {
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, 'weather-tools');

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['forecast']);

  const res = await client.callTool({ name: 'forecast', arguments: { city: 'Paris' } });
  assert.equal(res.isError, undefined);
  assert.equal(res.content[0].text, '{"city":"Paris","summary":"Sunny, 24C"}');

  const bad = await client.callTool({ name: 'forecast', arguments: { city: 7 } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /invalid arguments for tool "forecast"/);

  await client.close();
  console.log(`ok: the TypeScript SDK listed and called the router over stdio (${args.join(' ')})`);
} catch (err) {
  console.error(err);
  console.error(`octo's standard error:\n${stderr}`);
  await client.close().catch(() => {});
  process.exit(1);
}
