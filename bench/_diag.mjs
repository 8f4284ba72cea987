import { PORTS, callTool, launchBrowser, log, mcpClient, newContext, openNotebook, runAllAndWaitStory, startServer, sleep } from '/work/main/bench/lib.mjs';
import { execSync } from 'node:child_process';
const server = await startServer({ port: PORTS.a, name: 'diag' });
const browser = await launchBrowser();
try {
  const page = await (await newContext(browser)).newPage();
  await openNotebook(page, server, 'demo.ipynb');
  log('opened');
  const client = await mcpClient(server);
  for (let i=0;i<5;i++){const t=performance.now(); await callTool(client,'observe'); log('observe before story', (performance.now()-t).toFixed(1));}
  await runAllAndWaitStory(page);
  log('ready');
  await sleep(3000);
  console.log(execSync("ps -eo pid,pcpu,etime,args --sort=-pcpu | head -8 | cut -c1-160").toString());
  const frames = await page.evaluate(() => new Promise(r => { let n=0; const t0=performance.now(); const f=()=>{n++; if(performance.now()-t0<2000) requestAnimationFrame(f); else r(n);}; requestAnimationFrame(f); }));
  log('rAF frames in 2s', frames);
  const lt = await page.evaluate(() => new Promise(r => { let worst=0, last=performance.now(); const id=setInterval(()=>{const now=performance.now(); worst=Math.max(worst, now-last-10); last=now;},10); setTimeout(()=>{clearInterval(id); r(worst);},2000); }));
  log('worst timer lag ms', lt);
  for (let i=0;i<5;i++){const t=performance.now(); await callTool(client,'observe'); log('observe after story', (performance.now()-t).toFixed(1));}
  for (let i=0;i<5;i++){const t=performance.now(); await callTool(client,'status'); log('status', (performance.now()-t).toFixed(1));}
  await client.close();
} finally { await browser.close(); await server.stop(); }
