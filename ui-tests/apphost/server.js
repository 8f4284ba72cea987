/**
 * The test MCP Apps host's two web servers (spec 2026-01-26, "Sandbox proxy"):
 * the host page on one origin (http://localhost:<port>) and the sandbox proxy
 * on another (http://127.0.0.1:<another port>), as a web host MUST.
 *
 * - Host origin: `/host.html` and `/host.js`, the browser bundle of
 *   src/host.ts (the SDK's `AppBridge`), built here with esbuild in memory.
 * - Sandbox origin: `/sandbox.html` (with `Content-Security-Policy` set as an
 *   HTTP header from its `?csp=` query: the resource's `_meta.ui.csp`, or the
 *   spec's restrictive default when the query is absent) and `/sandbox.js`.
 *   The View is written into an about:blank iframe of that page, which
 *   inherits the page's policy, so the View runs under the header's CSP and
 *   cannot loosen it (a `<meta>` CSP can only add restrictions).
 *
 * Nothing is served from anywhere else; both servers listen on 127.0.0.1.
 * CommonJS, like ../chromium.js, for the Playwright tests.
 */
const fs = require('fs');
const http = require('http');
const path = require('path');

const HERE = __dirname;

/**
 * The CSP the spec requires when a UI resource declares no `_meta.ui.csp`
 * ("Restrictive Default"), plus what the sandbox rules add (no nested frames,
 * no plugins, base URI same origin): no eval, no `new Function`, no blob: or
 * data: scripts, no workers, no fetch/XHR/WebSocket, no fonts; inline scripts
 * and styles only.
 */
const DEFAULT_CSP = [
  "default-src 'none'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "media-src 'self' data:",
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'self'"
].join('; ');

/** Keep only origins that cannot break out of their directive (no quotes, `;`, `,` or spaces). */
function origins(list) {
  return (Array.isArray(list) ? list : []).filter(d => typeof d === 'string' && /^[^\s;,'"]+$/.test(d));
}

/**
 * The CSP header for a resource's `_meta.ui.csp` (spec "CSP Construction from
 * Metadata"), or {@link DEFAULT_CSP} for `undefined`. No 'unsafe-eval',
 * 'wasm-unsafe-eval', blob: or data: scripts whatever is declared: declared
 * domains only add origins.
 *
 * @param {{ connectDomains?: string[], resourceDomains?: string[], frameDomains?: string[], baseUriDomains?: string[] } | undefined} csp
 * @returns {string}
 */
function cspHeader(csp) {
  if (csp === undefined || csp === null) {
    return DEFAULT_CSP;
  }
  const res = origins(csp.resourceDomains);
  const join = (...parts) => parts.flat().join(' ');
  const frames = origins(csp.frameDomains);
  const bases = origins(csp.baseUriDomains);
  return [
    "default-src 'none'",
    join("script-src 'self' 'unsafe-inline'", res),
    join("style-src 'self' 'unsafe-inline'", res),
    join("connect-src 'self'", origins(csp.connectDomains)),
    join("img-src 'self' data:", res),
    join("font-src 'self'", res),
    join("media-src 'self' data:", res),
    frames.length ? join('frame-src', frames) : "frame-src 'none'",
    "object-src 'none'",
    bases.length ? join('base-uri', bases) : "base-uri 'self'"
  ].join('; ');
}

let bundle = null;

/** The browser bundle of src/host.ts (IIFE), built once per process. */
async function hostBundle() {
  if (bundle === null) {
    const esbuild = require('esbuild');
    bundle = esbuild
      .build({
        entryPoints: [path.join(HERE, 'src', 'host.ts')],
        bundle: true,
        format: 'iife',
        platform: 'browser',
        target: 'chrome120',
        write: false,
        sourcemap: 'inline',
        logLevel: 'silent',
        absWorkingDir: path.resolve(HERE, '..')
      })
      .then(r => r.outputFiles[0].text);
  }
  return bundle;
}

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server.address().port));
  });
}

function send(res, status, type, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers });
  res.end(body);
}

/**
 * Start the host and sandbox servers on free ports.
 *
 * @returns {Promise<{ hostOrigin: string, sandboxOrigin: string, hostUrl: string,
 *   sandboxUrl: (csp?: object) => string, served: Array<{ origin: 'host' | 'sandbox', path: string, csp?: string }>,
 *   close: () => Promise<void> }>}
 *   `sandboxUrl(csp)`: the proxy's URL for a resource's `_meta.ui.csp` (none: the default);
 *   `served`: every request answered, with the CSP sent (for the tests to check).
 */
async function startAppHostServers() {
  const js = await hostBundle();
  const hostHtml = fs.readFileSync(path.join(HERE, 'host.html'), 'utf8');
  const sandboxHtml = fs.readFileSync(path.join(HERE, 'sandbox.html'), 'utf8');
  const sandboxJs = fs.readFileSync(path.join(HERE, 'sandbox.js'), 'utf8');
  const served = [];
  let hostOrigin = '';

  const host = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    served.push({ origin: 'host', path: url.pathname });
    if (url.pathname === '/host.html') {
      send(res, 200, 'text/html; charset=utf-8', hostHtml);
    } else if (url.pathname === '/host.js') {
      send(res, 200, 'text/javascript; charset=utf-8', js);
    } else {
      send(res, 404, 'text/plain', `not served by the test host: ${url.pathname}`);
    }
  });
  const sandbox = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/sandbox.html') {
      let csp;
      const query = url.searchParams.get('csp');
      if (query !== null) {
        try {
          csp = JSON.parse(query);
        } catch {
          send(res, 400, 'text/plain', 'csp is not JSON');
          return;
        }
      }
      const header = cspHeader(csp);
      served.push({ origin: 'sandbox', path: url.pathname, csp: header });
      // The host's origin is written into the page: the proxy takes messages from it alone.
      const html = sandboxHtml.replace('__HOST_ORIGIN__', hostOrigin);
      send(res, 200, 'text/html; charset=utf-8', html, { 'Content-Security-Policy': header });
    } else if (url.pathname === '/sandbox.js') {
      served.push({ origin: 'sandbox', path: url.pathname });
      send(res, 200, 'text/javascript; charset=utf-8', sandboxJs);
    } else {
      served.push({ origin: 'sandbox', path: url.pathname });
      send(res, 404, 'text/plain', `not served by the sandbox: ${url.pathname}`);
    }
  });
  const hostPort = await listen(host);
  const sandboxPort = await listen(sandbox);
  hostOrigin = `http://localhost:${hostPort}`;
  const sandboxOrigin = `http://127.0.0.1:${sandboxPort}`;
  const close = server =>
    new Promise(resolve => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return {
    hostOrigin,
    sandboxOrigin,
    hostUrl: `${hostOrigin}/host.html`,
    sandboxUrl: csp => `${sandboxOrigin}/sandbox.html${csp === undefined ? '' : `?csp=${encodeURIComponent(JSON.stringify(csp))}`}`,
    served,
    close: async () => {
      await Promise.all([close(host), close(sandbox)]);
    }
  };
}

module.exports = { DEFAULT_CSP, cspHeader, hostBundle, startAppHostServers };
