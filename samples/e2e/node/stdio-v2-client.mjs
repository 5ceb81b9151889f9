// Starts octo as an MCP client starts a server it runs as a command, with the official
// TypeScript SDK v2 client (@modelcontextprotocol/client) pinned to protocol 2026-07-28, lists
// the tools and calls one. Run by samples/e2e/tssdk_v2_test.go as
// `node stdio-v2-client.mjs <tool> <arguments JSON> <octo> <args...>`. Prints one line, `ok: `
// and a JSON summary {version, server, tools, text, isError}; on failure prints the error and
// octo's standard error, and exits 1.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

const [tool, argsJSON, command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: node stdio-v2-client.mjs <tool> <arguments JSON> <octo> <args...>');
  process.exit(2);
}

// The whole environment: the SDK passes only a few variables by default, and octo mcp reads
// OCTO_APP and OCTO_DATA_DIR.
const transport = new StdioClientTransport({ command, args, env: process.env, stderr: 'pipe' });
let stderr = '';
transport.stderr?.on('data', (chunk) => (stderr += chunk));
const client = new Client({ name: 'octo-e2e-v2', version: '1' }, {
  versionNegotiation: { mode: { pin: '2026-07-28' } },
});

try {
  await client.connect(transport);
  const { tools } = await client.listTools();
  const res = await client.callTool({ name: tool, arguments: JSON.parse(argsJSON) });
  const summary = {
    version: client.getNegotiatedProtocolVersion(),
    server: client.getServerVersion()?.name,
    tools: tools.map((t) => t.name),
    text: res.content?.[0]?.text,
    isError: res.isError ?? false,
  };
  await client.close();
  console.log('ok: ' + JSON.stringify(summary));
} catch (err) {
  console.error(err);
  console.error(`octo's standard error:\n${stderr}`);
  await client.close().catch(() => {});
  process.exit(1);
}
