// Build the Ketcher editor frame (src/ketcher/frame/main.ts) and the depiction frame
// (src/ketcher/frame/depict.ts: the Indigo engine only, no editor UI), compiled by tsc into lib/,
// into the extension's static assets: molspace/labextension/static/ketcher/{index,depict}.html
// (docs/architecture.md, "Ketcher", "Report panels"). Runs after the JupyterLab extension build, which empties static/.
//   node scripts/build-ketcher-frame.mjs [--production]
import { rspack } from '@rspack/core';
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const production = process.argv.includes('--production');
const out = join(root, 'molspace/labextension/static/ketcher');
const ketcherVersion = JSON.parse(readFileSync(join(root, 'node_modules/ketcher-react/package.json'), 'utf8')).version;

const config = {
  mode: production ? 'production' : 'development',
  devtool: false,
  context: root,
  entry: { frame: './lib/ketcher/frame/main.js', depict: './lib/ketcher/frame/depict.js' },
  target: 'web',
  output: {
    path: out,
    // Chunks, the Indigo worker and its WASM resolve from this bundle's own URL.
    publicPath: 'auto',
    filename: '[name].[contenthash:8].js',
    chunkFilename: '[name].[contenthash:8].js',
    assetModuleFilename: '[name].[contenthash:8][ext]',
    clean: true
  },
  module: {
    rules: [
      { test: /\.css$/, use: [require.resolve('style-loader'), require.resolve('css-loader')] },
      { test: /\.(svg|png|woff2?|ttf|eot)$/, type: 'asset' },
      { test: /\.m?js$/, resolve: { fullySpecified: false } }
    ]
  },
  resolve: { fallback: { fs: false, path: false, crypto: false } },
  plugins: [
    new rspack.DefinePlugin({
      __KETCHER_VERSION__: JSON.stringify(ketcherVersion),
      'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development')
    }),
    new rspack.ProvidePlugin({ process: require.resolve('process/browser') })
  ],
  performance: { hints: false },
  stats: 'errors-warnings'
};

const compiler = rspack(config);
compiler.run((err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err ?? stats.toString({ all: false, errors: true }));
    process.exit(1);
  }
  const entrypoints = stats.toJson({ all: false, entrypoints: true, publicPath: false }).entrypoints;
  const entry = entrypoints.frame.assets.map(a => a.name);
  const depict = entrypoints.depict.assets.map(a => a.name);
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, 'index.html'),
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Ketcher</title>
<style>html, body, #root { margin: 0; height: 100%; overflow: hidden; }</style>
${entry.map(name => `<script defer src="${name}"></script>`).join('\n')}
</head>
<body><div id="root"></div></body>
</html>
`
  );
  writeFileSync(
    join(out, 'depict.html'),
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>molspace depictions</title>
${depict.map(name => `<script defer src="${name}"></script>`).join('\n')}
</head>
<body></body>
</html>
`
  );
  console.log(`depiction frame: ${depict.join(', ')}`);
  console.log(`ketcher frame: ${entry.join(', ')} -> ${out} (ketcher ${ketcherVersion})`);
  compiler.close(() => undefined);
});
