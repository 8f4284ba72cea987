/**
 * Exporting a Viewer whose frames stay on demand (`frameSource.ts`, thrown by
 * `ViewerModel.sourceFile` for `.mvsx`/`.html` export and `Viewer.to_mvsx`): the refusal names
 * who holds the frames, the kernel for a cell's Viewer and the Jupyter server for an agent's, with
 * a fix that fits (a cell's `frames=` slice; for an agent's, which has no cell, a shorter file or
 * the page's `trajectoryFrameBudget`).
 */
import { LIMITS } from '../../contract';
import { onDemandExportRefusal } from '../frameSource';

describe('onDemandExportRefusal', () => {
  it("a cell's Viewer: the frames stay in the kernel; fixed in the cell", () => {
    const e = onDemandExportRefusal('kernel', 'v1', 2500, 1000).toJSON();
    expect(e).toMatchObject({ code: 'TOO_LARGE', where: '/target', details: { target: 'v1', frames: 2500, source: 'kernel' } });
    expect(e.message).toBe("This Viewer's 2500 frames stay in the kernel (frames on demand): one file would carry every frame.");
    expect(e.fix).toMatch(/frames= a slice/);
  });

  it("an agent's Viewer: the frames stay on the Jupyter server; the fix names the file and the page's budget, no cell", () => {
    const e = onDemandExportRefusal('server', 'open-3', 2500, 100).toJSON();
    expect(e).toMatchObject({ code: 'TOO_LARGE', where: '/target', details: { target: 'open-3', frames: 2500, source: 'server' } });
    expect(e.message).toBe("This Viewer's 2500 frames stay on the Jupyter server (frames on demand): one file would carry every frame.");
    expect(e.fix).toContain('trajectoryFrameBudget, 100 now');
    expect(e.fix).toContain(`under ${LIMITS.viewerSourceBytes} bytes`);
    expect(`${e.message} ${e.fix}`).not.toMatch(/kernel|cell/i);
  });

  it('a frame count the kernel did not give reads "many"', () => {
    expect(onDemandExportRefusal('server', 'x', undefined, 1000).message).toMatch(/^This Viewer's many frames/);
  });
});
