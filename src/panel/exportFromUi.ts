/**
 * The docked panel's *Export…* button (docs/architecture.md, "Report
 * panels"): asks for a path under the Jupyter root (default
 * `<panelId><ending>`), runs `export` through the page's Dispatcher
 * (source `ui`), and asks before replacing an existing file (the tool's
 * FORBIDDEN at `/overwrite`), then runs it again with `overwrite`.
 *
 * @returns the line to show beside the button: where it was written, or the
 *   located refusal.
 */
import { MolspaceError, PANEL_EXPORT_EXTENSIONS, type PanelContent } from '../contract';
import type { IMolspacePage } from '../tokens';

export type ExportPanel = (target: string, panelId: string, content: PanelContent | null) => Promise<string | null>;

export function panelExporter(page: Pick<IMolspacePage, 'dispatcher'>): ExportPanel {
  return async (target, panelId, content) => {
    const { Dialog, InputDialog, showDialog } = await import('@jupyterlab/apputils');
    const ending = content ? PANEL_EXPORT_EXTENSIONS[content.type] : '';
    const asked = await InputDialog.getText({ title: 'Export panel', label: 'Path under the Jupyter root', text: `${panelId}${ending}` });
    if (!asked.button.accept || !asked.value) {
      return null;
    }
    const run = (overwrite: boolean) => page.dispatcher.execute('export', { target, path: asked.value, overwrite }, { source: 'ui' });
    try {
      try {
        await run(false);
      } catch (e) {
        if (!(e instanceof MolspaceError && e.code === 'FORBIDDEN' && e.where === '/overwrite')) {
          throw e;
        }
        const replace = await showDialog({
          title: 'Replace file?',
          body: `${asked.value} exists. Replace it with this panel?`,
          buttons: [Dialog.cancelButton(), Dialog.warnButton({ label: 'Replace' })]
        });
        if (!replace.button.accept) {
          return 'Not exported: the file exists.';
        }
        await run(true);
      }
      return `Exported to ${asked.value}`;
    } catch (e) {
      const error = MolspaceError.from(e, 'panel export');
      return `${error.code} at ${error.where}: ${error.message} Fix: ${error.fix}`;
    }
  };
}
