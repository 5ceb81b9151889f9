// Calls the tools of samples/mcp-http-api with the official TypeScript SDK client, over
// Streamable HTTP or over stdio: the weather tool's two routes (its switch), its answer to an
// unknown station (its catch), and file_report's progress before its result. Run by
// samples/e2e/httpapi_sample_test.go as `node http-api-client.mjs <repo> http <url>` or
// `node http-api-client.mjs <repo> stdio <octo> <args...>` (octo runs in <repo>, with this
// process's environment: HTTP_PORT and API_URL). Exits 0 after printing one summary line; on
// any mismatch prints the failing check and exits 1.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [repo, mode, target, ...args] = process.argv.slice(2);
if (!repo || !['http', 'stdio'].includes(mode) || !target) {
  console.error('usage: node http-api-client.mjs <repo> http <url> | <repo> stdio <octo> <args...>');
  process.exit(2);
}

let stderr = '';
const transport =
  mode === 'http'
    ? new StreamableHTTPClientTransport(new URL(target))
    : // The SDK passes a child only a few variables unless told: the API's port and URL must reach octo.
      new StdioClientTransport({ command: target, args, cwd: repo, env: { ...process.env }, stderr: 'pipe' });
transport.stderr?.on('data', (chunk) => (stderr += chunk));
const client = new Client({ name: 'octo-e2e-http-api', version: '1' });

try {
  await client.connect(transport);
  assert.equal(client.getServerVersion()?.name, 'weather-stations');

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), ['stations', 'weather', 'file_report']);

  const now = await client.callTool({ name: 'weather', arguments: { station: 'oslo' } });
  assert.equal(now.isError, undefined);
  assert.deepEqual(JSON.parse(now.content[0].text), { station: 'oslo', temperatureC: 7, sky: 'snow' });

  const week = await client.callTool({ name: 'weather', arguments: { station: 'paris', when: 'week' } });
  assert.deepEqual(JSON.parse(week.content[0].text).days.map((d) => d.day), ['Mon', 'Tue', 'Wed']);

  const unknown = await client.callTool({ name: 'weather', arguments: { station: 'rome' } });
  assert.equal(unknown.isError, true);
  assert.equal(unknown.content[0].text, 'there is no station named rome; try lisbon, oslo, paris');

  const heard = [];
  let resultSeen = false;
  const filed = await client.callTool(
    { name: 'file_report', arguments: { station: 'lisbon', text: 'Clear skies all week' } },
    undefined,
    { onprogress: (p) => heard.push({ ...p, beforeResult: !resultSeen }) },
  );
  resultSeen = true;
  assert.equal(filed.content[0].text, 'Filed report lisbon-1 (4 words); highs this week up to 22C');
  assert.deepEqual(
    heard.map((p) => `${p.progress}/${p.total} ${p.message} ${p.beforeResult}`),
    ['1/2 checking the week at lisbon true', '2/2 filing the report true'],
  );

  await client.close();
  console.log(`ok: the TypeScript SDK called the stations tools over ${mode} and heard ${heard.length} progress notifications before the report was filed`);
} catch (err) {
  console.error(err);
  if (stderr) console.error(`octo's standard error:\n${stderr}`);
  await client.close().catch(() => {});
  process.exit(1);
}
