// Logs in to an MCP server behind OAuth as an MCP client does, with the official TypeScript
// SDK's OAuth client (its auth flow and the InMemoryOAuthClientProvider of its examples):
// discovery from the server's 401, dynamic client registration, the authorization code flow
// with PKCE against `octo auth-server`, then a session with the token. Run by
// samples/e2e/authserver_test.go as `node oauth-login.mjs <mcp-url>`; prints one JSON line:
// the tools listed, whoami's answer, and the URL the login was sent to.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { InMemoryOAuthClientProvider } from '@modelcontextprotocol/sdk/examples/client/simpleOAuthClientProvider.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: node oauth-login.mjs <mcp-url>');
  process.exit(2);
}

// The browser's part: the redirect URI is never served; the code is read from where the
// authorization server sends the browser.
const redirectUrl = 'http://localhost:1/callback';
let authorizationUrl;
const provider = new InMemoryOAuthClientProvider(
  redirectUrl,
  {
    client_name: 'octo e2e login',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  },
  (u) => { authorizationUrl = u; },
);

const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
try {
  await new Client({ name: 'octo-e2e-oauth', version: '1' }).connect(first);
  throw new Error('connected without logging in');
} catch (e) {
  if (!(e instanceof UnauthorizedError) || !authorizationUrl) {
    throw e;
  }
}
const approved = await fetch(authorizationUrl, { redirect: 'manual' });
const location = new URL(approved.headers.get('location') ?? '', authorizationUrl);
const code = location.searchParams.get('code');
if (approved.status !== 302 || !code) {
  throw new Error(`the authorization server did not send a code: ${approved.status} ${location}`);
}
await first.finishAuth(code);

const client = new Client({ name: 'octo-e2e-oauth', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
const tools = (await client.listTools()).tools.map((t) => t.name);
const whoami = await client.callTool({ name: 'whoami', arguments: {} });
await client.close();
console.log(JSON.stringify({ tools, whoami: whoami.content[0].text, authorize: authorizationUrl.origin + authorizationUrl.pathname }));
