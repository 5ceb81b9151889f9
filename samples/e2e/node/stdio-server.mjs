// An MCP server over stdio written with the official TypeScript SDK (its low-level Server and
// StdioServerTransport, as the SDK's README shows), for octo test --server -- node stdio-server.mjs.
// It offers a tool that adds, one that reports progress and logs as it counts, one that keeps a
// tally for as long as the process runs, one that waits until it is cancelled and one that says
// how many were, one that unlocks another (telling the client the list changed), and a resource.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const server = new Server(
  { name: 'ts-stdio-server', version: '1.0.0' },
  { capabilities: { tools: { listChanged: true }, resources: {}, logging: {} } },
);

let unlocked = false;
let cancelled = 0;

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    { name: 'wait', description: 'Waits until cancelled (at most 30s).', inputSchema: { type: 'object', properties: {} } },
    { name: 'cancelled', description: 'How many waits were cancelled.', inputSchema: { type: 'object', properties: {} } },
    { name: 'unlock', description: 'Unlocks the secret tool.', inputSchema: { type: 'object', properties: {} } },
    ...(unlocked ? [{ name: 'secret', description: 'Unlocked.', inputSchema: { type: 'object', properties: {} } }] : []),
    {
      name: 'add',
      description: 'Adds two integers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'integer' }, b: { type: 'integer' } },
        required: ['a', 'b'],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'tally',
      description: 'Adds one to a tally kept for the session, and says it.',
      inputSchema: { type: 'object', properties: {} },
    },
    {
      name: 'count',
      description: 'Counts to three, reporting progress and logging each step.',
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    },
  ],
}));

let tally = 0;

server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
  const { name, arguments: args = {} } = req.params;
  if (name === 'wait') {
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 30000);
      extra.signal.addEventListener('abort', () => { cancelled++; clearTimeout(timer); resolve(); });
    });
    return { content: [{ type: 'text', text: 'waited' }] };
  }
  if (name === 'cancelled') {
    return { content: [{ type: 'text', text: String(cancelled) }] };
  }
  if (name === 'unlock') {
    unlocked = true;
    await server.sendToolListChanged();
    return { content: [{ type: 'text', text: 'unlocked' }] };
  }
  if (name === 'secret') {
    return { content: [{ type: 'text', text: 'the secret' }] };
  }
  if (name === 'tally') {
    tally++;
    return { content: [{ type: 'text', text: `tally ${tally}` }] };
  }
  if (name === 'add') {
    if (!Number.isInteger(args.a) || !Number.isInteger(args.b)) {
      return { content: [{ type: 'text', text: 'a and b must be integers' }], isError: true };
    }
    const sum = args.a + args.b;
    return { content: [{ type: 'text', text: String(sum) }], structuredContent: { sum } };
  }
  if (name === 'count') {
    const token = req.params._meta?.progressToken;
    for (let i = 1; i <= 3; i++) {
      await server.sendLoggingMessage({ level: 'info', data: `step ${i}` });
      if (token !== undefined) {
        await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
      }
    }
    return { content: [{ type: 'text', text: 'counted to 3' }] };
  }
  throw new Error(`unknown tool ${name}`);
});

server.setRequestHandler(ListResourcesRequestSchema, async () => ({
  resources: [{ uri: 'notes://today', name: 'today', mimeType: 'text/plain' }],
}));

server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
  if (req.params.uri !== 'notes://today') {
    throw new Error(`no resource ${req.params.uri}`);
  }
  return { contents: [{ uri: 'notes://today', mimeType: 'text/plain', text: `written at ${new Date().toISOString()}` }] };
});

await server.connect(new StdioServerTransport());
