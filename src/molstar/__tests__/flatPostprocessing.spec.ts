/**
 * @jest-environment jsdom
 *
 * Mol*'s MVS `resetCanvasProps` (the real function, run before every MVS load) against a canvas
 * whose `setProps` merges `postprocessing` as `Canvas3D.setProps` does: without the guard the
 * live postprocessing props gain the canvas keys and nest one level per load; with it they stay
 * postprocessing's own. (Galata's soak checks the live Mol* canvas.)
 */
import { DefaultCanvas3DParams, type Canvas3DProps } from 'molstar/lib/mol-canvas3d/canvas3d';
import { PostprocessingParams } from 'molstar/lib/mol-canvas3d/passes/postprocessing';
import { resetCanvasProps } from 'molstar/lib/extensions/mvs/camera';
import type { PluginContext } from 'molstar/lib/mol-plugin/context';

import { flatPostprocessing, keepPostprocessingFlat } from '../flatPostprocessing';

/** What `Canvas3D` does with props, as far as postprocessing goes (molstar 5.11 `canvas3d.ts`). */
function canvas() {
  const p = JSON.parse(JSON.stringify(DefaultCanvas3DParams)) as Canvas3DProps;
  const c = {
    get props(): Canvas3DProps {
      return { ...p, postprocessing: { ...p.postprocessing } };
    },
    setProps(props: Partial<Canvas3DProps>): void {
      if (props.postprocessing) {
        Object.assign(p.postprocessing, props.postprocessing);
      }
    }
  };
  return { c, live: () => p.postprocessing as unknown as Record<string, unknown> };
}

function depth(pp: Record<string, unknown>): number {
  let d = 0;
  for (let cur = pp; cur && typeof cur.postprocessing === 'object'; cur = cur.postprocessing as Record<string, unknown>) {
    d++;
  }
  return d;
}

const own = Object.keys(PostprocessingParams).sort();

describe("Mol*'s canvas postprocessing props across MVS loads", () => {
  it('nest one level per load without the guard (what it is for)', () => {
    const { c, live } = canvas();
    for (let i = 0; i < 5; i++) {
      resetCanvasProps({ canvas3d: c } as unknown as PluginContext);
    }
    expect('camera' in live()).toBe(true);
    expect(depth(live())).toBe(5);
  });

  it('stay postprocessing’s own keys with the guard, the reset values applied', () => {
    const { c, live } = canvas();
    keepPostprocessingFlat(c as never);
    live().occlusion = { name: 'on', params: {} };
    for (let i = 0; i < 5; i++) {
      resetCanvasProps({ canvas3d: c } as unknown as PluginContext);
    }
    expect(Object.keys(live()).sort()).toEqual(own);
    expect(depth(live())).toBe(0);
    expect(live().occlusion).toEqual(DefaultCanvas3DParams.postprocessing.occlusion);
  });

  it('leaves a flat postprocessing object as it is', () => {
    const flat = { ...DefaultCanvas3DParams.postprocessing };
    expect(flatPostprocessing(flat)).toBe(flat);
  });
});
