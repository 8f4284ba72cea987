/**
 * Bind the page's docked-panel host (`./panelHost.ts`): new docked panels
 * open in the main area as tabs of the molspace tab stack (`../dockedTab.ts`), and
 * render with JupyterLab's rendermime registry (with its mime extensions,
 * among them the Vega renderer).
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IRenderMimeRegistry } from '@jupyterlab/rendermime';
import type { IMolspacePage } from '../tokens';
import { policyRenderMime } from '../resources/resourceSanitizer';
import { addDocked } from '../dockedTab';
import { DockedPanel } from './dockedPanel';
import { setPanelHost } from './panelHost';
import { ketcherOpener } from './openMolecule';
import { linkFollower } from './panelLinks';
import { panelExporter } from './exportFromUi';

export function startPanels(page: IMolspacePage, shell: JupyterFrontEnd.IShell, app: IRenderMimeRegistry | null): void {
  // Images in panel markdown follow the Story resource hosts (src/resources/resourceSanitizer.ts).
  const rendermime = app && policyRenderMime(app, page.resourcePolicy);
  setPanelHost(page.registry, {
    dock(panelId, title, content, placement) {
      const panel = new DockedPanel(
        panelId,
        title,
        content,
        rendermime,
        page.registry,
        ketcherOpener(page),
        linkFollower(page),
        panelExporter(page)
      );
      page.registry.register(panel);
      addDocked(shell, panelId, panel.widget, placement, { activate: false });
      return panel;
    }
  });
}
