// Lint for the TypeScript page code (run by scripts/lint.sh, in CI).
// The layer rule keeps the folder order of docs/architecture.md ("Page"):
// a file imports from its own folder and the layers below, never up, never in a circle.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import jupyter from '@jupyter/eslint-plugin';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

/** Bottom to top; an entry is a folder or a top-level file of src/. */
const LAYERS = [
  ['contract'],
  ['resources'],
  ['molstar'],
  ['dispatcher'],
  ['kernel'],
  ['tokens.ts', 'dockPlacement.ts', 'dockedTab.ts', 'widgetManager.ts', 'version.ts'],
  ['widget'],
  ['story', 'viewer', 'ketcher', 'authoring', 'webmcp', 'fallback'],
  ['panel'],
  ['app'],
  ['tools'],
  ['bridge', 'activity', 'warmUp.ts', 'molspacePage.ts'],
  ['molspace.ts'],
  ['plugins'],
  ['index.ts']
];
/** Widget kinds of one layer do not import each other. */
const SIBLINGS_APART = LAYERS[7];

const path = entry => `./src/${entry}`;
const zones = [];
LAYERS.forEach((layer, i) => {
  const above = LAYERS.slice(i + 1).flat().map(path);
  for (const entry of layer) {
    if (above.length) {
      zones.push({ target: path(entry), from: above, except: [], message: `layers: src/${entry} may not import a higher layer (docs/architecture.md, "Page")` });
    }
  }
});
for (const entry of SIBLINGS_APART) {
  zones.push({
    target: path(entry),
    from: SIBLINGS_APART.filter(e => e !== entry).map(path),
    message: `layers: src/${entry} may not import another widget kind of its layer; move what both need down (docs/architecture.md, "Page")`
  });
}

export default tseslint.config(
  { ignores: ['lib/**', 'node_modules/**', 'static/**', 'molspace/**', 'ui-tests/**', 'bench/**', 'scripts/**', '.venv/**', '**/*.js', '**/*.mjs'] },
  // JupyterLab's own rules: plugin ids and descriptions, token format, signal and disposable ownership.
  ...jupyter.configs.recommended,
  {
    files: ['src/**/*.ts'],
    extends: [tseslint.configs.recommended, importX.flatConfigs.typescript],
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.test.json' })] },
    rules: {
      'import-x/no-cycle': 'error',
      // UI strings are English only for now: translating them (ITranslator through every view) is its own change.
      'jupyter/no-untranslated-string': 'off',
      // `_name` is a deliberate discard (a destructured field dropped from a copy, an unused parameter).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      'import-x/no-restricted-paths': ['error', { zones }]
    }
  },
  {
    // Tests exercise a layer with what stands above it (a real Dispatcher with every tool).
    files: ['src/**/__tests__/**/*.ts'],
    // Fixtures reach into Mol* and widget internals untyped.
    rules: { 'import-x/no-restricted-paths': 'off', '@typescript-eslint/no-explicit-any': 'off' }
  }
);
