/**
 * A cell's `Viewer.to_mvsx(path)` (docs/architecture.md, "Viewer"): the kernel asks the page for
 * the Viewer's `.mvsx` over the widget's comm, as the page asks the kernel for frames on demand
 * (`molspace/viewer/frames.py`), and writes the file itself (its path is the kernel's):
 *
 *     kernel -> page  {"type": "mvsx", "id"}
 *     page -> kernel  {"type": "mvsx", "id", "bytes"}  + the archive as one binary buffer
 *     page -> kernel  {"type": "mvsx", "id", "error": {code, message, where, fix, details}}
 *
 * The archive is the one `export` writes (`./viewerArchive.ts`, loaded on use by the
 * caller: it needs Mol*'s zip writer). Every page that shows the Viewer answers; the kernel keeps
 * the first archive. This module loads no Mol* code.
 */
import { MolspaceError } from '../contract';

/**
 * Largest archive sent to the kernel, bytes. A page's message to the kernel crosses the
 * Jupyter server's kernel websocket, which closes on a message over 10 MiB (Tornado's default
 * `websocket_max_message_size`), dropping every widget's connection: so 8 MiB, refused before.
 */
export const KERNEL_ARCHIVE_BYTES = 8 * 1024 * 1024;

/** The kernel's request: `{type: 'mvsx', id}`. */
export interface ArchiveRequest {
  type: 'mvsx';
  id: string;
}

export function isArchiveRequest(msg: unknown): msg is ArchiveRequest {
  const m = msg as Partial<ArchiveRequest> | null;
  return typeof m === 'object' && m !== null && m.type === 'mvsx' && typeof m.id === 'string' && m.id.length > 0 && m.id.length <= 64;
}

/** Send one message on the widget's comm (`DOMWidgetModel.send(content, callbacks, buffers)`). */
export type SendToKernel = (content: Record<string, unknown>, buffers: Uint8Array[]) => void;

/**
 * Answer `request` with the archive `make` builds, or with its located error (`where`
 * `Viewer.to_mvsx` for an error that names none); never throws.
 *
 * @returns what was sent: the archive's size, or the error.
 */
export async function answerArchiveRequest(
  request: ArchiveRequest,
  make: () => Promise<{ bytes: Uint8Array }>,
  send: SendToKernel
): Promise<{ bytes: number } | { error: MolspaceError }> {
  let answer: { bytes: number } | { error: MolspaceError };
  try {
    const { bytes } = await make();
    if (bytes.length > KERNEL_ARCHIVE_BYTES) {
      throw new MolspaceError(
        'TOO_LARGE',
        `The archive is ${bytes.length} bytes; the page sends the kernel at most ${KERNEL_ARCHIVE_BYTES} in one message.`,
        'Viewer.to_mvsx',
        "Ask an agent to export the Viewer to .mvsx (the page writes it under the Jupyter root), or call the Viewer's to_html.",
        { bytes: bytes.length, limit: KERNEL_ARCHIVE_BYTES }
      );
    }
    send({ type: 'mvsx', id: request.id, bytes: bytes.length }, [bytes]);
    answer = { bytes: bytes.length };
  } catch (e) {
    const error = MolspaceError.from(e, 'Viewer.to_mvsx');
    answer = { error };
    try {
      send({ type: 'mvsx', id: request.id, error: error.toJSON() as unknown as Record<string, unknown> }, []);
    } catch (sendError) {
      console.warn(`molspace: could not answer the kernel's .mvsx request ${request.id} (the comm may be closed)`, sendError);
    }
  }
  return answer;
}
