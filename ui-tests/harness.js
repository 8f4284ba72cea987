/**
 * What the Galata tests (tests/helpers.ts) and the benchmarks (bench/lib.mjs)
 * share to drive a real molspace server: the notebook file a run starts from,
 * the wait for a Jupyter server to answer, and an agent's MCP client (the
 * official TypeScript SDK over Streamable HTTP) with the way an agent reads a
 * tool result. CommonJS, like chromium.js beside it, so that the tests
 * (CommonJS) and the benchmarks (ES modules) load the same file; the SDK is
 * the one installed in ui-tests/node_modules.
 */
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

/** The gateway's path under the server's base_url (docs/architecture.md, "Gateway"). */
const MCP_PATH = '/molspace/mcp';

/** The kernel every test and benchmark notebook runs on. */
const KERNELSPEC = { display_name: 'Python 3 (ipykernel)', language: 'python', name: 'python3' };

/**
 * An nbformat 4.5 notebook of code cells, as the JSON text a Jupyter server
 * reads (`sources`: one string a cell; none for an empty notebook).
 *
 * @param {string[]} [sources]
 * @returns {string}
 */
function notebookJson(sources = []) {
  return JSON.stringify({
    cells: sources.map((source, i) => ({ cell_type: 'code', execution_count: null, id: `c${i}`, metadata: {}, outputs: [], source })),
    metadata: { kernelspec: KERNELSPEC },
    nbformat: 4,
    nbformat_minor: 5
  });
}

/**
 * Wait until the Jupyter server at `url` answers `/api/status` with `token`.
 *
 * @param {string} url - the server's URL with its base_url, no trailing slash.
 * @param {string} token - the server's token.
 * @param {{ timeoutMs?: number, stillStarting?: () => string | null }} [opts] -
 *   `stillStarting` returns why the wait is over (e.g. the process exited) or null.
 * @returns {Promise<number>} ms until it answered.
 * @throws Error naming the URL when it did not answer within `timeoutMs` (120 s) or `stillStarting` said why.
 */
async function waitForServer(url, token, { timeoutMs = 120_000, stillStarting = () => null } = {}) {
  const started = performance.now();
  for (;;) {
    const why = stillStarting();
    if (why !== null) {
      throw new Error(`Jupyter server at ${url} did not start: ${why}`);
    }
    try {
      const r = await fetch(`${url}/api/status`, { headers: { Authorization: `token ${token}` } });
      if (r.ok) {
        return performance.now() - started;
      }
    } catch {
      // not up yet
    }
    if (performance.now() - started > timeoutMs) {
      throw new Error(`Jupyter server at ${url} did not answer /api/status within ${Math.round(timeoutMs / 1000)} s`);
    }
    await new Promise(r => setTimeout(r, 200));
  }
}

/**
 * A connected MCP client of the molspace gateway at `server` (official
 * TypeScript SDK 1.x, Streamable HTTP), as an agent connects: with `listTools`
 * (the default) `tools/list` comes first, so the client validates every
 * `structuredContent` against its tool's `outputSchema` afterwards.
 *
 * @param {{ server: string, token: string | null, name: string, listTools?: boolean }} opts -
 *   `server`: the server's URL with its base_url; `token`: a Jupyter or agent
 *   token, null for none (to test refusals); `name`: the client's name.
 * @returns {Promise<Client>}
 */
async function connectMcp({ server, token, name, listTools = true }) {
  const headers = token === null ? {} : { Authorization: `token ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(`${server}${MCP_PATH}`), { requestInit: { headers } });
  const client = new Client({ name, version: '0.1.0' });
  await client.connect(transport);
  if (listTools) {
    await client.listTools();
  }
  return client;
}

/**
 * Read a `tools/call` result as an agent reads it: `[structuredContent,
 * false]` on success, or `[located error, true]` parsed from the error
 * result's text (its summary line, then the JSON of the located error).
 *
 * @param {{ isError?: boolean, structuredContent?: unknown, content?: unknown }} result
 * @returns {[any, boolean]}
 * @throws Error quoting the text when an error result holds no located error.
 */
function readToolResult(result) {
  if (!result.isError) {
    return [result.structuredContent, false];
  }
  const text = Array.isArray(result.content) && result.content[0]?.type === 'text' ? result.content[0].text : '';
  try {
    return [JSON.parse(text.slice(text.indexOf('\n') + 1)), true];
  } catch {
    throw new Error(`an error result without a located error: ${JSON.stringify(result.content).slice(0, 500)}`);
  }
}

module.exports = { MCP_PATH, KERNELSPEC, notebookJson, waitForServer, connectMcp, readToolResult };
