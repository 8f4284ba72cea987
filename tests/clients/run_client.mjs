/**
 * Drive the molspace MCP gateway with an official TypeScript client, as an agent does:
 * connect over Streamable HTTP, call `tools/list`, then each planned `tools/call`, and
 * print what the client hands over (or what it threw).
 *
 *   node run_client.mjs sdk1|sdk2 < plan.json > results.json
 *
 * plan.json: {"url": "...molspace/mcp", "token": "...", "calls": [{"tool": "...", "args": {...}}]}
 * stdout:    {"client": "...", "tools": [names], "results": [{"result": CallToolResult} | {"threw": message}]}
 *
 * Used by tests/gateway/test_clients.py; `sdk1` is `@modelcontextprotocol/sdk` 1.x,
 * `sdk2` is `@modelcontextprotocol/client` 2.x.
 */
import { readFileSync } from 'node:fs';

async function connect(kind, url, headers) {
  if (kind === 'sdk1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new Client({ name: 'molspace-test-sdk1', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  }
  if (kind === 'sdk2') {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const client = new Client({ name: 'molspace-test-sdk2', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    return client;
  }
  throw new Error(`unknown client kind ${kind}; use sdk1 or sdk2`);
}

const kind = process.argv[2];
const plan = JSON.parse(readFileSync(0, 'utf8'));
const client = await connect(kind, plan.url, { Authorization: `token ${plan.token}` });
const out = { client: kind, tools: [], results: [] };
try {
  out.tools = (await client.listTools()).tools.map(t => t.name);
  for (const { tool, args } of plan.calls) {
    try {
      out.results.push({ result: await client.callTool({ name: tool, arguments: args }) });
    } catch (e) {
      out.results.push({ threw: `${e?.name ?? 'Error'}: ${e?.message ?? String(e)}` });
    }
  }
} finally {
  await client.close();
}
process.stdout.write(JSON.stringify(out) + '\n');
