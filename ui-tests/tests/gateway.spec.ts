/**
 * The gateway's refusals against the real server: no page, no or wrong
 * token, a foreign Origin.
 */
import { expect, test } from '@playwright/test';
import { MCP_URL, SERVER, TOKEN, call, mcpClient } from './helpers';

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } }
};

async function post(headers: Record<string, string>): Promise<Response> {
  return fetch(MCP_URL, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(INIT)
  });
}

test.describe('MCP gateway refusals', () => {
  test('no page connected gives NO_PAGE at once, saying how to connect', async () => {
    const client = await mcpClient();
    try {
      // Pages of earlier tests disconnect when their browser page closes.
      await expect.poll(async () => (await call(client, 'status'))[0].pageConnected).toBe(false);
      const [status] = await call(client, 'status');
      expect(status.howToConnect).toMatch(/lab/);
      const [error, isError] = await call(client, 'observe');
      expect(isError).toBe(true);
      expect(error).toMatchObject({ code: 'NO_PAGE' });
      expect(error.fix).toMatch(/JupyterLab/);
    } finally {
      await client.close();
    }
  });

  test('a missing or wrong token is refused', async () => {
    expect((await post({})).status).toBeGreaterThanOrEqual(401);
    expect((await post({})).status).toBeLessThan(404);
    expect((await post({ Authorization: 'token not-the-token' })).status).toBeGreaterThanOrEqual(401);
    expect((await post({ Authorization: 'token not-the-token' })).status).toBeLessThan(404);
    await expect(mcpClient(null)).rejects.toThrow();
    await expect(mcpClient('wrong')).rejects.toThrow();
    expect((await post({ Authorization: `token ${TOKEN}` })).status).toBe(200);
  });

  test('a foreign Origin is refused, the server own origin is not', async () => {
    const foreign = await post({ Authorization: `token ${TOKEN}`, Origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(await foreign.text()).toMatch(/Origin/i);
    const same = await post({ Authorization: `token ${TOKEN}`, Origin: SERVER });
    expect(same.status).toBe(200);
  });
});
