import { PORTS, callTool, launchBrowser, log, mcpClient, newContext, openNotebook, runAllAndWaitStory, startServer, sleep } from './lib.mjs';
const server = await startServer({ port: PORTS.a, name: 'diag' });
const browser = await launchBrowser();
try {
  const ctx = await newContext(browser);
  await ctx.addInitScript(() => {
    const c = (window.__gl = { draw: 0, read: 0, finish: 0, clientWait: 0, fence: 0, raf: 0 });
    for (const P of [WebGL2RenderingContext.prototype, WebGLRenderingContext.prototype]) {
      for (const [m, k] of [['drawElements','draw'],['drawArrays','draw'],['drawElementsInstanced','draw'],['drawArraysInstanced','draw'],['readPixels','read'],['finish','finish'],['clientWaitSync','clientWait'],['fenceSync','fence']]) {
        const orig = P[m]; if (!orig) continue;
        P[m] = function (...a) { c[k]++; return orig.apply(this, a); };
      }
    }
  });
  const page = await ctx.newPage();
  await openNotebook(page, server, 'demo.ipynb');
  await runAllAndWaitStory(page);
  log('ready');
  for (const wait of [2000, 5000, 10000]) {
    await sleep(wait);
    const a = await page.evaluate(() => ({ ...window.__gl }));
    await sleep(2000);
    const b = await page.evaluate(() => ({ ...window.__gl }));
    log(`after +${wait}ms, per 2 s:`, Object.fromEntries(Object.keys(a).map(k => [k, b[k]-a[k]])));
  }
  const info = await page.evaluate(() => { const cv = document.querySelector('.molspace-story canvas'); return cv ? { w: cv.width, h: cv.height, cw: cv.clientWidth, ch: cv.clientHeight, dpr: devicePixelRatio } : null; });
  log('canvas', info);
} finally { await browser.close(); await server.stop(); }
