/**
 * Connect with the official TypeScript SDK 2.x client (protocol negotiation 'auto'), call
 * `status`, wait for a line on stdin (the test restarts the Jupyter server meanwhile), then
 * call `status` again on the same client object. Prints one JSON line per call.
 *
 *   node survive_restart.mjs <mcp url> <token>
 *
 * Used by tests/gateway/test_restart.py.
 */
import { createInterface } from 'node:readline';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, token] = process.argv.slice(2);
const client = new Client({ name: 'molspace-restart-test', version: '0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `token ${token}` } } }));
await client.listTools();

async function status(label) {
  try {
    const r = await client.callTool({ name: 'status', arguments: {} });
    console.log(JSON.stringify({ label, isError: Boolean(r.isError), pageConnected: r.structuredContent?.pageConnected }));
  } catch (e) {
    console.log(JSON.stringify({ label, threw: String(e?.message ?? e) }));
  }
}

await status('before');
const lines = createInterface({ input: process.stdin });
for await (const _ of lines) {
  break;
}
await status('after');
await client.close();
