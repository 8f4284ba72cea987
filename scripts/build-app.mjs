// Build the MCP App (src/app/, compiled by tsc into lib/app/) into the Python package:
// molspace/app/static/{loader,viewer,panel,export-handoff}.js, each one self-contained script (no chunks: an App
// loads nothing by URL). The gateway serves them as ui:// resources (molspace/app/resources.py;
// docs/architecture.md, "MCP App"): the loader inside the App's HTML, the viewer in parts the
// loader reads back through the host; an exported HTML file carries export-handoff.js and viewer.js
// (a panel's: panel.js) inline (molspace/app/export.py). panel.js is the Panel App (ui://molspace/panel),
// which carries the notebook's panel styles (style/base.css's .molspace-panel rules) as a string.
// A production build also writes their third-party licences.
//   node scripts/build-app.mjs [--production]
import { rspack } from '@rspack/core';
import { WPPlugin } from '@jupyter/builder';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const out = join(root, 'molspace/app/static');
// The notebook's panel rules (selectors naming .molspace-panel*), for the Panel App.
const panelCss = [...readFileSync(join(root, 'style/base.css'), 'utf8').matchAll(/([^{}]+)\{([^{}]*)\}/g)]
  .filter(([, selector]) => selector.includes('molspace-panel'))
  .map(([rule]) => rule.trim())
  .join('\n');
const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;

const compiler = rspack({
  mode: production ? 'production' : 'development',
  devtool: false,
  context: root,
  entry: {
    loader: './lib/app/appLoader.js',
    viewer: './lib/app/viewerApp.js',
    panel: './lib/app/panelApp.js',
    'export-handoff': './lib/app/exportHandoff.js'
  },
  target: 'web',
  // publicPath '': nothing is loaded by URL, and an inline script has no src to derive one from.
  output: { path: out, filename: '[name].js', asyncChunks: false, clean: true, publicPath: '' },
  module: { rules: [{ test: /\.m?js$/, resolve: { fullySpecified: false } }] },
  resolve: {
    fallback: { fs: false, path: false, crypto: false },
    // The Panel App takes one thing of @jupyterlab/apputils, JupyterLab's Sanitizer (it and
    // @jupyterlab/rendermime's registry import it from the package's index, which would bring the
    // whole UI toolkit and its SVG icons): the index is that module.
    alias: { '@jupyterlab/apputils$': join(root, 'node_modules/@jupyterlab/apputils/lib/sanitizer.js') }
  },
  optimization: {
    splitChunks: false,
    runtimeChunk: false,
    // ASCII only (other characters as \u escapes): the gateway cuts the viewer into parts of
    // limits.appResourceBytes characters, so one character must be one byte.
    minimizer: [new rspack.SwcJsMinimizerRspackPlugin({ minimizerOptions: { format: { asciiOnly: true, comments: false } } })]
  },
  plugins: [
    new rspack.DefinePlugin({
      __MOLSPACE_VERSION__: JSON.stringify(version),
      __MOLSPACE_PANEL_CSS__: JSON.stringify(panelCss),
      'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development')
    }),
    new rspack.optimize.LimitChunkCountPlugin({ maxChunks: 1 }),
    ...(production ? [new WPPlugin.JSONLicenseWebpackPlugin()] : [])
  ],
  performance: { hints: false },
  stats: 'errors-warnings'
});

compiler.run((err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err ?? stats.toString({ all: false, errors: true }));
    process.exit(1);
  }
  const sizes = ['loader.js', 'viewer.js', 'panel.js', 'export-handoff.js'].map(
    f => `${f} ${(statSync(join(out, f)).size / 1024).toFixed(0)} KiB`
  );
  console.log(`MCP App: ${sizes.join(', ')} -> ${out}`);
  compiler.close(() => undefined);
});
