/**
 * On software WebGL every MVS state asks Mol* for no ambient occlusion: the
 * states stay valid MVS, Mol*'s own reading of the canvas node (the function
 * `loadMVS` uses, after it resets the canvas to Mol*'s defaults) turns SSAO
 * off, and everything else in the state is kept.
 */
import { modifyCanvasProps, resetCanvasProps } from 'molstar/lib/extensions/mvs/camera';
import { MVSData } from 'molstar/lib/extensions/mvs/mvs-data';
import { DefaultCanvas3DParams, type Canvas3DProps } from 'molstar/lib/mol-canvas3d/canvas3d';

import { keepSoftwareProps, withoutOcclusion } from '../softwareCanvas';

const structure = {
  kind: 'download',
  params: { url: 'https://files.example/1cbs.cif' },
  children: [{ kind: 'parse', params: { format: 'mmcif' }, children: [{ kind: 'structure', params: { type: 'model' } }] }]
};

/** One MVS node as these tests write it. */
type Node = { kind: string; params?: object; custom?: object; children?: Node[] };

const single = (children: Node[]) => ({ kind: 'single', metadata: { version: '1' }, root: { kind: 'root', children } });

/** The occlusion Mol* would draw with after loading `root`: defaults (as loadMVS resets), then the canvas node. */
function occlusionAfterLoad(root: Node): string {
  const canvas = root.children?.find(c => c.kind === 'canvas');
  return modifyCanvasProps(DefaultCanvas3DParams, canvas as never, undefined).postprocessing.occlusion.name;
}

describe('withoutOcclusion', () => {
  it('Mol* draws a state without a canvas node with SSAO, and its software form without', () => {
    const state = single([structure]);
    expect(occlusionAfterLoad(state.root)).toBe('on');
    const soft = withoutOcclusion(state);
    expect(occlusionAfterLoad(soft.root)).toBe('off');
    expect(MVSData.validationIssues(soft as never)).toBeUndefined();
    // the added node asks for nothing else: the background stays MVS's default
    const canvas = soft.root.children.find(c => c.kind === 'canvas');
    expect(canvas?.params).toEqual({});
    expect(soft.root.children).toContainEqual(structure);
  });

  it("keeps a state's own canvas background and post-processing, with SSAO off", () => {
    const state = single([
      {
        kind: 'canvas',
        params: { background_color: '#223344' },
        custom: { molstar_postprocessing: { enable_ssao: true, enable_outline: true } }
      },
      structure
    ]);
    const before = structuredClone(state);
    const soft = withoutOcclusion(state);
    expect(state).toEqual(before); // the input is not changed
    expect(soft.root.children).toHaveLength(2);
    expect(soft.root.children[0]).toEqual({
      kind: 'canvas',
      params: { background_color: '#223344' },
      custom: { molstar_postprocessing: { enable_ssao: false, enable_outline: true } }
    });
    const props = modifyCanvasProps(DefaultCanvas3DParams, soft.root.children[0] as never, undefined);
    expect(props.postprocessing.occlusion.name).toBe('off');
    expect(props.postprocessing.outline.name).toBe('on');
    expect(MVSData.validationIssues(soft as never)).toBeUndefined();
  });

  it('turns SSAO off in every snapshot of a multi-state Story', () => {
    const story = MVSData.createMultistate(
      [
        { ...single([structure]), metadata: { version: '1', key: 'a', title: 'A', linger_duration_ms: 1000 } },
        {
          ...single([{ kind: 'canvas', params: { background_color: 'black' } }, structure]),
          metadata: { version: '1', key: 'b', title: 'B', linger_duration_ms: 1000 }
        }
      ] as never,
      { title: 'two steps' }
    );
    const soft = withoutOcclusion(story);
    expect(soft.snapshots.map(s => occlusionAfterLoad(s.root as never))).toEqual(['off', 'off']);
    expect(story.snapshots.map(s => occlusionAfterLoad(s.root as never))).toEqual(['on', 'on']);
    expect(MVSData.validationIssues(soft)).toBeUndefined();
  });

  it('returns what is not MVS-shaped unchanged, for Mol*’s validation to report', () => {
    for (const bad of [null, 42, 'text', { kind: 'multiple' }, { kind: 'single' }, { root: 'x' }]) {
      expect(withoutOcclusion(bad)).toBe(bad);
    }
  });
});

describe('keepSoftwareProps', () => {
  /** Enough of Mol*'s Canvas3D: props, and setProps taking a partial or an updater of a copy. */
  function canvas() {
    let props = structuredClone(DefaultCanvas3DParams) as Canvas3DProps;
    const c = {
      get props() {
        return props;
      },
      setProps(p: Partial<Canvas3DProps> | ((old: Canvas3DProps) => Partial<Canvas3DProps> | void)) {
        if (typeof p === 'function') {
          const copy = structuredClone(props);
          props = { ...copy, ...(p(copy) ?? {}) };
        } else {
          props = { ...props, ...p };
        }
      }
    };
    return c;
  }

  it("turns SSAO and temporal multi-sampling off, and keeps them off through loadMVS's reset and a state's canvas", () => {
    const gpu = canvas();
    resetCanvasProps({ canvas3d: gpu } as never);
    expect(gpu.props.postprocessing.occlusion.name).toBe('on'); // what a load does to any canvas

    const soft = canvas();
    keepSoftwareProps(soft as never);
    expect([soft.props.postprocessing.occlusion.name, soft.props.multiSample.mode]).toEqual(['off', 'off']);
    resetCanvasProps({ canvas3d: soft } as never); // Mol*'s own reset, as loadMVS calls it
    expect(soft.props.postprocessing.occlusion.name).toBe('off');
    const ssaoState = { kind: 'canvas', params: {}, custom: { molstar_postprocessing: { enable_ssao: true, enable_outline: true } } };
    soft.setProps(modifyCanvasProps(soft.props, ssaoState as never, undefined));
    expect(soft.props.postprocessing.occlusion.name).toBe('off');
    expect(soft.props.postprocessing.outline.name).toBe('on'); // nothing else is changed
    soft.setProps(p => {
      p.multiSample.mode = 'temporal';
    });
    expect(soft.props.multiSample.mode).toBe('off');
  });
});
