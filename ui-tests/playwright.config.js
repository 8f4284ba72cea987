/**
 * Galata configuration: Debian's Chromium (no downloaded browser), a real
 * Jupyter server started from this folder with token authentication.
 */
const baseConfig = require('@jupyterlab/galata/lib/playwright-config');
const chromium = require('./chromium');

const TOKEN = 'molspace-ui-test-token';
// MOLSPACE_UI_TEST_PORT lets two worktrees run their UI tests side by side (default 8888);
// jupyter_server_test_config.py and tests/helpers.ts read the same variable.
const PORT = process.env.MOLSPACE_UI_TEST_PORT || '8888';

module.exports = {
  ...baseConfig,
  workers: 1,
  retries: 0,
  // End-to-end tests run a kernel, JupyterLab and software-rendered Mol* on 2 shared cores.
  timeout: 300_000,
  expect: { timeout: 30_000 },
  reporter: [['list']],
  use: {
    ...baseConfig.use,
    baseURL: `http://localhost:${PORT}`,
    // Video needs Playwright's own ffmpeg download, which this machine cannot fetch.
    video: 'off',
    // The page is served behind token auth; Galata's own requests carry it too.
    extraHTTPHeaders: { Authorization: `token ${TOKEN}` },
    launchOptions: { executablePath: chromium.executablePath, args: chromium.args }
  },
  webServer: {
    command: 'jupyter lab --config jupyter_server_test_config.py',
    url: `http://localhost:${PORT}/api/status?token=${TOKEN}`,
    timeout: 120_000,
    reuseExistingServer: !process.env.CI
  }
};
