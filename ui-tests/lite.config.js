/**
 * molspace in JupyterLite (lite/lite.e2e.ts): scripts/build-lite.sh builds the site clean
 * (jupyter lite build, Pyodide hosted in the site) and Python's http.server serves it on
 * 127.0.0.1; Debian's Chromium reaches nothing else (the spec fails on any other request).
 * Run: npx playwright test -c lite.config.js (port: MOLSPACE_LITE_TEST_PORT, default 8895).
 */
const path = require('path');
const chromium = require('./chromium');

const PORT = process.env.MOLSPACE_LITE_TEST_PORT || '8895';
const ROOT = path.resolve(__dirname, '..');
const SITE = path.join(ROOT, 'build', 'lite-test-site');
const CONTENTS = [
  path.join(__dirname, 'lite', 'molspace-lite.ipynb'),
  path.join(ROOT, 'tests', 'data', 'structures', '1cbs.cif'),
  path.join(ROOT, 'examples', 'data', '1cbs-story.mvsx')
];

module.exports = {
  // Not *.spec.ts: the Galata run (playwright.config.js) does not pick it up.
  testDir: 'lite',
  testMatch: 'lite.e2e.ts',
  workers: 1,
  retries: 0,
  // Pyodide, its packages and software-rendered Mol* on 2 shared cores.
  timeout: 400_000,
  expect: { timeout: 60_000 },
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    video: 'off',
    trace: 'off',
    viewport: { width: 1280, height: 1000 },
    launchOptions: {
      executablePath: chromium.executablePath,
      // Host names other than 127.0.0.1 do not resolve: nothing leaves the machine even if a
      // request escaped the spec's routing (a worker's, say).
      args: [...chromium.args, '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1']
    }
  },
  webServer: {
    command: `bash ../scripts/build-lite.sh ${SITE} ${CONTENTS.join(' ')} && python3 -m http.server ${PORT} --bind 127.0.0.1 --directory ${SITE} 2>/dev/null`,
    url: `http://127.0.0.1:${PORT}/jupyter-lite.json`,
    timeout: 300_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    // The build's output (its errors); the file server's request log is dropped above.
    stderr: 'pipe'
  }
};
