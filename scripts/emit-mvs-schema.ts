/**
 * Emit the MolViewSpec authoring reference `story_schema` answers from:
 * `molspace/contract/mvs-schema.json` (docs/architecture.md, "Story authoring").
 *
 * Run at build time (`npm run build:mvs-schema`, part of `npm run build`). Walks
 * the bundled Mol*'s own MVS tree schema (`MVSTreeSchema`: node kinds, their
 * allowed parents, their param schemas) and reads the snapshot metadata fields
 * from Mol*'s `SnapshotMetadata` declaration (TypeScript compiler API), so the
 * reference is the runtime's and cannot drift from what validates and plays.
 * Shipped in the wheel, not committed (like manifest.json).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ts from 'typescript';
import { buildMvsSchema } from '../src/authoring/mvsSchema';

const root = join(__dirname, '..');
const molstarDir = join(root, 'node_modules/molstar');
const molstarVersion: string = JSON.parse(readFileSync(join(molstarDir, 'package.json'), 'utf8')).version;

/** `name`, type text, optionality and JSDoc of each member of one interface in a .d.ts file. */
function interfaceFields(file: string, name: string): { name: string; type: string; required: boolean; description: string }[] {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const decl = src.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name
  );
  if (!decl) {
    throw new Error(`emit-mvs-schema: interface ${name} not found in ${file}`);
  }
  return decl.members.filter(ts.isPropertySignature).map(m => ({
    name: m.name.getText(src),
    type: m.type ? m.type.getText(src) : 'unknown',
    required: m.questionToken === undefined,
    description: ts
      .getJSDocCommentsAndTags(m)
      .map(d => (typeof d.comment === 'string' ? d.comment : ''))
      .join(' ')
      .trim()
  }));
}

const mvsData = join(molstarDir, 'lib/extensions/mvs/mvs-data.d.ts');
const schema = buildMvsSchema({
  molstar: molstarVersion,
  snapshotMetadata: interfaceFields(mvsData, 'SnapshotMetadata'),
  globalMetadata: interfaceFields(mvsData, 'GlobalMetadata')
});

const out = join(root, 'molspace/contract/mvs-schema.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(schema) + '\n');
console.log(`emit-mvs-schema: ${Object.keys(schema.nodes).length} node kinds (MVS ${schema.mvsSpec}) -> ${out}`);
