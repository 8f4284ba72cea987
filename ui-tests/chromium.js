/**
 * How molspace drives Debian's Chromium headless, shared by the Galata tests
 * (playwright.config.js) and the benchmarks (bench/lib.mjs): software WebGL
 * (SwiftShader) since these machines have no GPU, and no background
 * networking, which a closed network refuses.
 */
module.exports = {
  executablePath: '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--use-gl=angle',
    '--use-angle=swiftshader',
    '--enable-unsafe-swiftshader',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
    // WebMCP (document.modelContext) for the in-browser agent tests; Playwright's page.webmcp reads it.
    '--enable-features=WebMCP'
  ]
};
