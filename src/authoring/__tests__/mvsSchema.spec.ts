/**
 * The emitted MVS reference (molspace/contract/mvs-schema.json, written by
 * scripts/emit-mvs-schema.ts at build time) against Mol*'s own MVSTreeSchema:
 * same kinds, same parents, same params, so story_schema cannot drift.
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { MVSData } from 'molstar/lib/extensions/mvs/mvs-data';
import { MVSTreeSchema } from 'molstar/lib/extensions/mvs/tree/mvs/mvs-tree';
import { mvsNodeKinds, type MvsSchema } from '../mvsSchema';

const FILE = join(__dirname, '../../../molspace/contract/mvs-schema.json');

describe('mvs-schema.json', () => {
  it('exists (npm run build:manifest writes it)', () => {
    expect(existsSync(FILE)).toBe(true);
  });

  const emitted = (): MvsSchema => JSON.parse(readFileSync(FILE, 'utf8'));
  const nodes = MVSTreeSchema.nodes as unknown as Record<
    string,
    { parent?: string[]; params: { type: string; fields?: object; cases?: object } }
  >;

  it("has exactly Mol*'s node kinds, in its order, with its parents", () => {
    const e = emitted();
    expect(Object.keys(e.nodes)).toEqual(Object.keys(nodes));
    for (const [kind, n] of Object.entries(nodes)) {
      expect(e.nodes[kind].parents).toEqual(n.parent ?? null);
    }
    expect(e.rootKind).toBe(MVSTreeSchema.rootKind);
    expect(e.mvsSpec).toBe(String(MVSData.SupportedVersion));
  });

  it("has each kind's params (names, or union cases) as Mol* defines them", () => {
    const e = emitted();
    for (const [kind, n] of Object.entries(nodes)) {
      const p = e.nodes[kind].params;
      if (n.params.type === 'simple') {
        expect(p.type === 'simple' && p.fields.map(f => f.name)).toEqual(Object.keys(n.params.fields!));
      } else {
        expect(p.type === 'union' && Object.keys(p.cases)).toEqual(Object.keys(n.params.cases!));
      }
    }
    expect(e.nodes).toEqual(mvsNodeKinds());
  });

  it('makes children the inverse of parents', () => {
    const kinds = mvsNodeKinds();
    expect(kinds.root.children).toEqual(expect.arrayContaining(['download', 'canvas', 'camera']));
    expect(kinds.structure.children).toContain('component');
    expect(kinds.representation.children).toContain('color');
    expect(kinds.color.children).toEqual([]);
  });

  it("reads the snapshot metadata fields from Mol*'s declaration", () => {
    const names = emitted().snapshotMetadata.map(f => f.name);
    expect(names).toEqual(['title', 'description', 'description_format', 'key', 'linger_duration_ms', 'transition_duration_ms']);
    expect(emitted().snapshotMetadata.find(f => f.name === 'linger_duration_ms')!.required).toBe(true);
  });
});
