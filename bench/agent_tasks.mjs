/**
 * Issue 19's five agent tasks through MCP alone, by the official Python SDK
 * client (`bench/agent_tasks.py`): a real Jupyter server whose root holds the
 * committed data, a real JupyterLab page in Debian's Chromium, and a person
 * who presses *Save* whenever an editor asks (task 4). Prints, per task, the
 * calls, bytes read, tokens estimated and wall time, and the `tools/list`
 * bytes; writes bench/results/agent_tasks.json. Asserts nothing on time.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PORTS, ROOT, TOKEN, launchBrowser, log, newContext, startServer, stopOnExit, writeResult, waitRestored, sleep, loadAvg, fmtLoad } from './lib.mjs';

const DATA = path.join(ROOT, 'tests', 'data', 'structures');

const server = await startServer({ port: PORTS.a, name: 'agent-tasks' });
const stopAll = stopOnExit([server]);
let browser;
try {
  for (const f of ['1hpv.pdb', '1cbs.cif', 'small01.mol']) fs.copyFileSync(path.join(DATA, f), path.join(server.root, 'data', f));
  browser = await launchBrowser();
  const context = await newContext(browser);
  const page = await context.newPage();
  await page.goto(`${server.url}/lab`);
  await waitRestored(page);
  await sleep(3000); // the bridge connects after `restored`; the agent's `status` first call says so
  const load = loadAvg();
  log(`page restored; ${fmtLoad(load)}`);
  // The person: presses Save in any editor that asks, as soon as it asks.
  let saves = 0;
  const person = setInterval(async () => {
    try {
      const button = page.locator('button.molspace-ketcher-save');
      if ((await button.count()) > 0) {
        await button.first().click({ timeout: 2000 });
        saves++;
      }
    } catch {
      // the page moved on
    }
  }, 300);
  const out = path.join(server.tmp, 'agent_tasks_py.json');
  const code = await new Promise(resolve => {
    const p = spawn('python', [path.join(ROOT, 'bench', 'agent_tasks.py'), '--url', server.url, '--token', TOKEN, '--out', out], {
      stdio: ['ignore', 'inherit', 'inherit']
    });
    p.on('exit', resolve);
  });
  clearInterval(person);
  if (code !== 0) throw new Error(`agent_tasks.py exited ${code}`);
  const report = JSON.parse(fs.readFileSync(out, 'utf8'));
  log(`tools/list: ${report.toolsList.bytes} bytes for ${report.toolsList.tools} tools`);
  for (const t of report.tasks) {
    log(`${t.task}: ${t.calls} calls, ${t.bytesRead} bytes read (~${t.tokensEstimated} tokens), ${t.ms.toFixed(0)} ms${t.error ? `, FAILED: ${t.error.slice(0, 300)}` : ''}`);
  }
  writeResult('agent_tasks', { load, saves, ...report });
} finally {
  await browser?.close();
  await stopAll();
}
