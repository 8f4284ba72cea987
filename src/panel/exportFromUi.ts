/**
 * The docked panel's *Export…* button (docs/architecture.md, "Report
 * panels"): asks for a path under the Jupyter root (default
 * `<panelId><ending>`; `.html` for one file that opens offline), runs
 * `export` through the page's Dispatcher (source `ui`), and asks before
 * replacing an existing file (FORBIDDEN at `/overwrite`), then runs it again
 * with `overwrite`. A `.html` path is written by the server
 * (`./exportHtmlRequest.ts`): the page's answer carries the panel's App data,
 * as for an agent's call the gateway writes.
 *
 * @returns the line to show beside the button: where it was written, or the
 *   located refusal.
 */
import { HTML_EXPORT_EXTENSION, MolspaceError, PANEL_EXPORT_EXTENSIONS, type PanelContent } from '../contract';
import type { IMolspacePage } from '../tokens';
import { PAGE_INSTANCE_ID } from '../widget/pageInstance';
import { writeHtmlExport, type WrittenHtml } from './exportHtmlRequest';

export type ExportPanel = (target: string, panelId: string, content: PanelContent | null) => Promise<string | null>;

/** The dialog's label: the panel's own ending, or `.html`. */
export function exportLabel(ending: string): string {
  return `Path under the Jupyter root (${ending ? `${ending}, or ` : ''}${HTML_EXPORT_EXTENSION}: one file that opens offline)`;
}

/**
 * `export` of `target` to `path` as a person asks it: a panel's own ending through the
 * Dispatcher; `.html` through the Dispatcher for the panel's App data (asked once), then
 * written by the server (`write`, default {@link writeHtmlExport}).
 */
export function exportRunner(
  page: Pick<IMolspacePage, 'dispatcher'>,
  target: string,
  path: string,
  write: (path: string, overwrite: boolean, answer: Record<string, unknown>) => Promise<WrittenHtml> = writeHtmlExport
): (overwrite: boolean) => Promise<unknown> {
  if (!path.toLowerCase().endsWith(HTML_EXPORT_EXTENSION)) {
    return overwrite => page.dispatcher.execute('export', { target, path, overwrite }, { source: 'ui' });
  }
  let answer: Promise<Record<string, unknown>> | null = null;
  return async overwrite => {
    answer ??= page.dispatcher
      .execute('export', { target, path }, { source: 'ui', context: { pageId: PAGE_INSTANCE_ID, pages: [], writesHtml: true } })
      .then(r => r.structuredContent);
    return write(path, overwrite, await answer);
  };
}

export function panelExporter(page: Pick<IMolspacePage, 'dispatcher'>): ExportPanel {
  return async (target, panelId, content) => {
    const { Dialog, InputDialog, showDialog } = await import('@jupyterlab/apputils');
    const ending = content ? PANEL_EXPORT_EXTENSIONS[content.type] : '';
    const asked = await InputDialog.getText({ title: 'Export panel', label: exportLabel(ending), text: `${panelId}${ending}` });
    if (!asked.button.accept || !asked.value) {
      return null;
    }
    const run = exportRunner(page, target, asked.value);
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
