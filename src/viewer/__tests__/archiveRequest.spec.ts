/**
 * A cell's `Viewer.to_mvsx`, the page half (`../archiveRequest.ts`): the kernel's `mvsx` request
 * answered with the archive `export` writes as one binary buffer, or a located error with no
 * buffer: the archive's own refusal, one over the kernel message bound (TOO_LARGE, nothing sent
 * but the error), a comm that is gone. The kernel half: tests/test_page_wait.py; the real page
 * and kernel: ui-tests/tests/exportViewer.spec.ts.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { Unzip } from 'molstar/lib/mol-util/zip/zip';
import { MolspaceError, type ViewerViewState } from '../../contract';
import { memoryViewer } from '../../__tests__/memoryViewer';
import { viewerArchive } from '../viewerArchive';
import { KERNEL_ARCHIVE_BYTES, answerArchiveRequest, isArchiveRequest } from '../archiveRequest';
import { initialView } from '../initialView';
import { defaultLayers, readStructure } from '../structureData';

const PDB = new Uint8Array(readFileSync(join(__dirname, '../../../tests/data/structures/1hpv.pdb')));

type Sent = { content: Record<string, unknown>; buffers: Uint8Array[] };

function recorder(): { sent: Sent[]; send: (content: Record<string, unknown>, buffers: Uint8Array[]) => void } {
  const sent: Sent[] = [];
  return { sent, send: (content, buffers) => sent.push({ content, buffers }) };
}

describe('the kernel asks for a Viewer’s .mvsx (Viewer.to_mvsx)', () => {
  it('knows the request only by its type and a bounded id', () => {
    expect(isArchiveRequest({ type: 'mvsx', id: 'abc' })).toBe(true);
    expect(isArchiveRequest({ type: 'mvsx', id: '' })).toBe(false);
    expect(isArchiveRequest({ type: 'mvsx', id: 'x'.repeat(65) })).toBe(false);
    expect(isArchiveRequest({ type: 'control', id: 'abc' })).toBe(false);
    expect(isArchiveRequest({ type: 'mvsx' })).toBe(false);
    expect(isArchiveRequest(null)).toBe(false);
  });

  it('answers the archive export writes as one binary buffer: index.mvsj and the structure file', async () => {
    const data = await readStructure(PDB, 'pdb', 'data/1hpv.pdb');
    const view = {
      ...initialView(defaultLayers(data)),
      colors: [{ selector: { label_asym_id: 'A' }, color: '#ff0000' }]
    } as ViewerViewState;
    const viewer = memoryViewer('protease', {
      sourceFile: () => ({ format: 'pdb', name: 'data/1hpv.pdb', bytes: PDB, coordinates: null }),
      structureData: async () => data,
      view: () => view
    });
    const { sent, send } = recorder();
    const answered = await answerArchiveRequest({ type: 'mvsx', id: 'r1' }, () => viewerArchive(viewer), send);
    expect(sent).toHaveLength(1);
    const [{ content, buffers }] = sent;
    expect(buffers).toHaveLength(1);
    expect(content).toEqual({ type: 'mvsx', id: 'r1', bytes: buffers[0].length });
    expect(answered).toEqual({ bytes: buffers[0].length });
    const files = (await Unzip(buffers[0].slice().buffer, false).run()) as Record<string, Uint8Array>;
    expect(Object.keys(files).sort()).toEqual(['1hpv.pdb', 'index.mvsj']);
    expect(JSON.stringify(JSON.parse(new TextDecoder().decode(files['index.mvsj'])))).toContain('"color":"#ff0000"');
  });

  it("answers the archive's refusal located, with no buffer; an error that names no place is Viewer.to_mvsx's", async () => {
    const viewer = memoryViewer(
      'broken',
      {},
      {
        error: { code: 'VALIDATION_FAILED', message: 'Mol* could not parse it', where: 'source', fix: 'Check the file.', details: {} }
      }
    );
    const { sent, send } = recorder();
    await answerArchiveRequest({ type: 'mvsx', id: 'r2' }, () => viewerArchive(viewer), send);
    expect(sent).toEqual([
      {
        content: { type: 'mvsx', id: 'r2', error: expect.objectContaining({ code: 'VALIDATION_FAILED', where: '/target' }) },
        buffers: []
      }
    ]);
    const bare = recorder();
    await answerArchiveRequest({ type: 'mvsx', id: 'r3' }, () => Promise.reject(new Error('boom')), bare.send);
    expect(bare.sent[0].content.error).toMatchObject({ code: 'INTERNAL', where: 'Viewer.to_mvsx' });
  });

  it('refuses an archive over the kernel message bound with TOO_LARGE, sending no bytes', async () => {
    const { sent, send } = recorder();
    const answered = await answerArchiveRequest(
      { type: 'mvsx', id: 'r4' },
      async () => ({ bytes: new Uint8Array(KERNEL_ARCHIVE_BYTES + 1) }),
      send
    );
    expect(sent).toHaveLength(1);
    expect(sent[0].buffers).toEqual([]);
    expect(sent[0].content.error).toMatchObject({
      code: 'TOO_LARGE',
      where: 'Viewer.to_mvsx',
      details: { bytes: KERNEL_ARCHIVE_BYTES + 1, limit: KERNEL_ARCHIVE_BYTES }
    });
    expect('error' in answered && answered.error).toBeInstanceOf(MolspaceError);
  });

  it('does not throw when the comm is gone', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const answered = await answerArchiveRequest(
      { type: 'mvsx', id: 'r5' },
      async () => ({ bytes: new Uint8Array(3) }),
      () => {
        throw new Error('comm closed');
      }
    );
    expect('error' in answered).toBe(true);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("could not answer the kernel's .mvsx request r5"), expect.any(Error));
    warn.mockRestore();
  });
});
