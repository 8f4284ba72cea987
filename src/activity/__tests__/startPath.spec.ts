/**
 * The activity panel on JupyterLab's start path: the modules `src/index.ts`
 * imports statically (what JupyterLab loads before `restored`) hold only the
 * plugin's side-panel tab and status-bar item; the log, the panel, the WebMCP
 * adapter, the Dispatcher and the contract (zod) load after `restored`, in
 * chunks of their own (`import()`). The time is measured by the start-up
 * benchmark (`bench/lab_startup.mjs`, docs/benchmarks.md).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as ts from 'typescript';

const SRC = path.join(__dirname, '..', '..');

/** Modules reached from `entry` by static, non-type imports: local files (relative to src/) and packages. */
function staticGraph(entry: string): { local: Set<string>; packages: Set<string> } {
  const local = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    const rel = path.relative(SRC, file);
    if (local.has(rel)) {
      return;
    }
    local.add(rel);
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    for (const node of source.statements) {
      let spec: ts.Expression | undefined;
      if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
        const named = node.importClause?.namedBindings;
        const onlyTypes =
          node.importClause !== undefined &&
          node.importClause.name === undefined &&
          named !== undefined &&
          ts.isNamedImports(named) &&
          named.elements.length > 0 &&
          named.elements.every(e => e.isTypeOnly);
        spec = onlyTypes ? undefined : node.moduleSpecifier;
      } else if (ts.isExportDeclaration(node) && !node.isTypeOnly) {
        spec = node.moduleSpecifier;
      }
      if (spec === undefined || !ts.isStringLiteral(spec)) {
        continue;
      }
      if (spec.text.startsWith('.')) {
        const base = path.resolve(path.dirname(file), spec.text);
        const found = [`${base}.ts`, path.join(base, 'index.ts')].find(f => fs.existsSync(f));
        if (found) {
          visit(found);
        }
      } else {
        packages.add(spec.text);
      }
    }
  };
  visit(entry);
  return { local, packages };
}

describe("JupyterLab's start path", () => {
  const { local, packages } = staticGraph(path.join(SRC, 'index.ts'));

  it('holds none of the activity log, panel, WebMCP adapter, Dispatcher or contract', () => {
    const late = [...local].filter(f => /^(activity|webmcp|dispatcher|contract|bridge|tools)\//.test(f));
    expect(late).toEqual([]);
    expect([...packages].filter(p => p === 'zod' || p.startsWith('molstar'))).toEqual([]);
  });

  it('loads the activity panel with import() once JupyterLab has restored', () => {
    const plugin = fs.readFileSync(path.join(SRC, 'plugins', 'activity.ts'), 'utf8');
    expect(plugin).toMatch(/afterRestore\(\s*app,\s*molspace,\s*\(\) => import\('\.\.\/activity\/startActivity'\)/);
    const after = fs.readFileSync(path.join(SRC, 'plugins', 'afterRestore.ts'), 'utf8');
    expect(after).toMatch(/app\.restored\s*\.then\(\(\) => Promise\.all\(\[molspace\.page\(\), load\(\)\]\)\)/);
  });
});
