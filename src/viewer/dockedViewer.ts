/**
 * Viewers that the page owns, docked in JupyterLab's main area (the `open`
 * tool): the same `ViewerModel` and `ViewerView` as a cell's Viewer, made
 * without a kernel (no comm: nothing is sent to a kernel), listed by
 * `observe` and driven by `act` through the Dispatcher. Files are read with
 * JupyterLab's contents API, so the server's root confinement applies; a trajectory past the
 * page's frame budget or `viewerSourceBytes` stays on the server, which serves its frames on
 * demand (`./serverFrames.ts`) under the same path policy.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { dockView, dockedId } from '../dockedTab';
import { LIMITS, MolspaceError, type CoordinatesFormat } from '../contract';
import type { IMolspacePage } from '../tokens';
import type { StructureOpener } from './structureOpener';
import { viewerModelClass, type ViewerModel } from './viewerModel';
import { ViewerView } from './viewerView';

/** The opener of this page: contents API reads, main-area docking. */
export function dockedViewerOpener(app: JupyterFrontEnd, page: IMolspacePage): StructureOpener {
  const ModelClass = viewerModelClass(page) as unknown as new (
    attrs: Record<string, unknown>,
    options: Record<string, unknown>
  ) => ViewerModel;
  return {
    async read(path: string, where = '/path'): Promise<Uint8Array> {
      const size = await fileSize(app, path, where);
      if (size !== null && size > LIMITS.viewerSourceBytes) {
        throw new MolspaceError(
          'TOO_LARGE',
          `"${path}" is ${size} bytes; the limit is ${LIMITS.viewerSourceBytes}.`,
          where,
          'Open a smaller file.',
          {
            path,
            bytes: size,
            limit: LIMITS.viewerSourceBytes
          }
        );
      }
      return readWhole(app, path, where);
    },

    async readCoordinates(path: string, format: CoordinatesFormat, where = '/coordinates') {
      const size = await fileSize(app, path, where);
      // the server serves its frames when the page should not hold them all (frames on demand)
      const { describeServerFrames } = await import('./serverFrames');
      const served = await describeServerFrames(path, where);
      if (served && (served.frames > page.viewerBudget.frameBudget || served.bytes > LIMITS.viewerSourceBytes)) {
        return { bytes: new Uint8Array(), format: served.format, name: path, served };
      }
      if (size !== null && size > LIMITS.viewerSourceBytes) {
        throw new MolspaceError(
          'TOO_LARGE',
          `"${path}" is ${size} bytes; the limit is ${LIMITS.viewerSourceBytes}, and the server cannot serve its frames one by one.`,
          where,
          'Install MDAnalysis where the Jupyter server runs (pip install MDAnalysis) so it serves the frames on demand, or open fewer frames.',
          { path, bytes: size, limit: LIMITS.viewerSourceBytes }
        );
      }
      return { bytes: await readWhole(app, path, where), format, name: path };
    },

    async open(source) {
      const id = dockedId('open');
      const model = new ModelClass(
        {
          _data: source.bytes,
          _mvs: source.mvs ?? null,
          format: source.format,
          source_name: source.name,
          title: source.title,
          _coordinates: source.coordinates?.served ? null : (source.coordinates?.bytes ?? null),
          coordinates_format: source.coordinates?.served ? '' : (source.coordinates?.format ?? ''),
          coordinates_name: source.coordinates?.name ?? '',
          _frames_on_demand: source.coordinates?.served ?? null
        },
        { model_id: id, widget_manager: null }
      );
      const served = source.coordinates?.served;
      if (served) {
        const path = source.coordinates!.name;
        const { fetchServerFrames } = await import('./serverFrames');
        model.serveFramesWith((start, count) => fetchServerFrames(path, start, count));
      }
      try {
        await model.structureData();
      } catch {
        // Nothing is docked for data Mol* cannot read: the located error goes back to the caller.
        // (A tab docked and disposed at once left Lumino messages for its disposed widget view.)
        model.close();
        return model;
      }
      const view = new ViewerView({ model } as never);
      dockView(app, model, view, {
        id,
        label: source.title,
        className: 'molspace-docked-viewer',
        placement: source.placement
      });
      return model; // the caller waits for its first draw (`../dispatcher/whenReady.ts`)
    }
  };
}

/**
 * The size of the file `path` by the contents API (null when it does not say).
 *
 * @throws MolspaceError `NOT_FOUND` (none, or a folder), `FORBIDDEN` at `where`.
 */
async function fileSize(app: JupyterFrontEnd, path: string, where: string): Promise<number | null> {
  try {
    const meta = await app.serviceManager.contents.get(path, { content: false });
    if (meta.type !== 'file') {
      throw new MolspaceError('NOT_FOUND', `"${path}" is a ${meta.type}, not a file.`, where, 'Pass the path of a structure file.', {
        path
      });
    }
    return typeof meta.size === 'number' ? meta.size : null;
  } catch (e) {
    throw contentsError(e, path, where);
  }
}

/** The bytes of the file `path` by the contents API. */
async function readWhole(app: JupyterFrontEnd, path: string, where: string): Promise<Uint8Array> {
  try {
    const model = await app.serviceManager.contents.get(path, { content: true, format: 'base64', type: 'file' });
    const b64 = String(model.content ?? '').replace(/\s+/g, '');
    return Uint8Array.from(atob(b64), c => c.charCodeAt(0));
  } catch (e) {
    throw contentsError(e, path, where);
  }
}

/** A contents API failure as a located error at `/path`. */
function contentsError(e: unknown, path: string, where: string): MolspaceError {
  if (e instanceof MolspaceError) {
    return e;
  }
  const status = (e as { response?: { status?: number } })?.response?.status;
  if (status === 404) {
    return new MolspaceError(
      'NOT_FOUND',
      `No file "${path}" under the Jupyter root.`,
      where,
      'Pass a path relative to the Jupyter root (as the file browser shows it).',
      { path }
    );
  }
  if (status === 403 || status === 400) {
    return new MolspaceError(
      'FORBIDDEN',
      `The Jupyter server refused to read "${path}" (HTTP ${status}).`,
      where,
      'Pass a path under the Jupyter root; paths outside it cannot be read.',
      {
        path,
        status
      }
    );
  }
  return new MolspaceError(
    'NOT_FOUND',
    `"${path}" could not be read: ${e instanceof Error ? e.message : String(e)}.`,
    where,
    'Check the path and that the Jupyter server is running.',
    {
      path,
      status: status ?? null
    }
  );
}
