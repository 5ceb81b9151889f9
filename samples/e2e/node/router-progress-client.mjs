// Calls the README's build_report tool (its "Progress from long tools" config) with the official
// TypeScript SDK client, asking for progress, over Streamable HTTP or over stdio, and checks that
// the progress comes before the result. Run by samples/e2e/router_progress_test.go as
// `node router-progress-client.mjs http <url>` or `node router-progress-client.mjs stdio <octo> <args...>`.
// Exits 0 after printing one summary line; on any mismatch prints the failing check and exits 1.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [mode, target, ...args] = process.argv.slice(2);
if (!['http', 'stdio'].includes(mode) || !target) {
  console.error('usage: node router-progress-client.mjs http <url> | stdio <octo> <args...>');
  process.exit(2);
}

let stderr = '';
const transport =
  mode === 'http'
    ? new StreamableHTTPClientTransport(new URL(target))
    : new StdioClientTransport({ command: target, args, stderr: 'pipe' });
transport.stderr?.on('data', (chunk) => (stderr += chunk));
const client = new Client({ name: 'octo-e2e-progress', version: '1' });

try {
  await client.connect(transport);
  const heard = [];
  let resultSeen = false;
  const res = await client.callTool({ name: 'build_report', arguments: { city: 'Oslo' } }, undefined, {
    onprogress: (p) => heard.push({ ...p, beforeResult: !resultSeen }),
  });
  resultSeen = true;
  assert.equal(res.content[0].text, 'Sales in Oslo are up 4%');
  assert.deepEqual(
    heard.map((p) => `${p.progress}/${p.total} ${p.message} ${p.beforeResult}`),
    ['1/2 collecting the figures of Oslo true', '1.6/2 waited 1s of 1.5s true', '2/2 writing the report true'],
  );
  await client.close();
  console.log(`ok: the TypeScript SDK heard ${heard.length} progress notifications before the result over ${mode}`);
} catch (err) {
  console.error(err);
  if (stderr) console.error(`octo's standard error:\n${stderr}`);
  await client.close().catch(() => {});
  process.exit(1);
}
