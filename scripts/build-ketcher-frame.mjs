// Build the Ketcher editor frame (src/ketcher/frame/main.ts) and the depiction frame
// (src/ketcher/frame/depict.ts: the Indigo engine only, no editor UI), compiled by tsc into lib/,
// into the extension's static assets: molspace/labextension/static/ketcher/{index,depict}.html
// (docs/architecture.md, "Ketcher", "Report panels"). Runs after the JupyterLab extension build, which empties static/.
// A production build also writes the frames' third-party licences (JupyterLab's own report format,
// from @jupyter/builder) to static/ketcher/third-party-licenses.json and adds the packages the
// extension's static/third-party-licenses.json lacks, so Help > Licenses lists Ketcher's too.
//   node scripts/build-ketcher-frame.mjs [--production]
import { rspack } from '@rspack/core';
import { WPPlugin } from '@jupyter/builder';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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
    new rspack.ProvidePlugin({ process: require.resolve('process/browser') }),
    ...(production ? [new WPPlugin.JSONLicenseWebpackPlugin()] : [])
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
  if (production) {
    mergeLicenses();
  }
  console.log(`depiction frame: ${depict.join(', ')}`);
  console.log(`ketcher frame: ${entry.join(', ')} -> ${out} (ketcher ${ketcherVersion})`);
  compiler.close(() => undefined);
});

/** Add the frames' licence records to the extension's report, one record per name and version. */
function mergeLicenses() {
  const frameReport = join(out, WPPlugin.DEFAULT_LICENSE_REPORT_FILENAME);
  const extensionReport = join(out, '..', WPPlugin.DEFAULT_LICENSE_REPORT_FILENAME);
  if (!existsSync(frameReport) || !existsSync(extensionReport)) {
    console.error(`licence report missing: ${existsSync(frameReport) ? extensionReport : frameReport} (run the production extension build first: npm run build:prod)`);
    process.exit(1);
  }
  const frame = JSON.parse(readFileSync(frameReport, 'utf8')).packages;
  const report = JSON.parse(readFileSync(extensionReport, 'utf8'));
  const seen = new Set(report.packages.map(p => `${p.name}@${p.versionInfo}`));
  const added = frame.filter(p => !seen.has(`${p.name}@${p.versionInfo}`));
  report.packages = [...report.packages, ...added].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  writeFileSync(extensionReport, JSON.stringify(report, null, 2));
  console.log(`licences: ${frame.length} packages in the frames, ${added.length} added to ${extensionReport}`);
}
