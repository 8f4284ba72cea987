/**
 * Where docked panels go: the `molspace:panels` plugin binds a host (the
 * application shell and JupyterLab's rendermime registry) to the page's
 * widget registry; `render_panel` asks it to dock a new panel. Pages without
 * a shell (tests, other front ends) have none, and `render_panel` can then
 * only update inline panels.
 */
import type { ChangeEntry, ChangeSource, PanelContent } from '../contract';
import type { WidgetRegistry } from '../dispatcher/registry';
import type { DockPlacement } from '../contract/toolArgs';
import type { GivenDepictions } from './givenDepictions';
import type { PanelTarget } from './panelTarget';

/** A docked panel just made: {@link NewPanel.open} renders its first content as revision 1. */
export interface NewPanel extends PanelTarget {
  /** `depictions`: a grid's first page the gateway drew for an agent's call (`CallContext.depictions`, read). */
  open(source: ChangeSource, summary: string, depictions?: GivenDepictions): Promise<ChangeEntry>;
}

export interface PanelHost {
  /** Create a docked panel (not yet rendered), add it to the main area and the registry. */
  dock(panelId: string, title: string, content: PanelContent, placement?: DockPlacement): NewPanel;
}

const hosts = new WeakMap<WidgetRegistry, PanelHost>();

export function setPanelHost(registry: WidgetRegistry, host: PanelHost): void {
  hosts.set(registry, host);
}

export function panelHostOf(registry: WidgetRegistry): PanelHost | null {
  return hosts.get(registry) ?? null;
}
