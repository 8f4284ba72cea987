/**
 * A report panel in the MCP App (`ui://molspace/panel`): the panel a `render_panel` result
 * carries (`_meta["molspace/panel"]`, `AppPanel`), checked and rendered by the notebook's own
 * code, with no JupyterLab page (docs/architecture.md, "Report panels", "MCP App"):
 *
 * - the checks: those of `checkPanelContent` (`src/panel/panelContent.ts`: bounds, cell types,
 *   inline chart data, links), each refusal located at `/content/...` as on the page, except the
 *   Vega-Lite JSON-schema check: Ajv compiles its validator with `new Function`, which the App's
 *   CSP refuses (no `'unsafe-eval'`), so a chart Vega-Lite cannot compile is located by the page's
 *   `chartRenderError` instead (at `/content/spec`, or the `field` Vega names);
 * - the DOM: `PanelRenderer` (`src/panel/panelRenderer.ts`), given a rendermime registry built
 *   here from JupyterLab's own packages, as a notebook's is: `@jupyterlab/rendermime`'s
 *   `text/markdown` renderer (untrusted: `@jupyterlab/apputils`' `Sanitizer` removes script,
 *   event handlers and `javascript:` links, and no script tag runs), wrapped in the page's image
 *   policy (`policyRenderMime`: only `data:` images, as the App's CSP allows), and
 *   `@jupyterlab/vega5-extension`'s renderer for Vega-Lite, with Vega's expression interpreter
 *   (the CSP refuses `new Function`). JupyterLab's markdown parser is a
 *   plugin (`@jupyterlab/markedparser-extension`, which needs an application, CodeMirror and
 *   mermaid): here the same library, `marked`, with the plugin's options and its two marked
 *   plugins (`marked-gfm-heading-id`, `marked-mangle`); no code highlighting, no mermaid;
 * - a molecule grid: the pictures the server drew with RDKit (Ketcher's Indigo engine is
 *   WebAssembly, which the hosts' default CSP blocks); a molecule without one shows its name, its
 *   SMILES and a note located at `/content/molecules/<i>/smiles`;
 * - links (a row that focuses a Viewer, a chart mark that goes to a frame): they act on a
 *   JupyterLab page's widgets, so only a panel a page docked has link buttons and linked marks,
 *   followed through the host (`./appPanelLinks.ts`); with no page there are none.
 */
import { Sanitizer } from '@jupyterlab/apputils';
import { RenderMimeRegistry, markdownRendererFactory, type IRenderMime } from '@jupyterlab/rendermime';
import { RenderedVega, rendererFactory as vegaRendererFactory } from '@jupyterlab/vega5-extension';
import type { CallToolResult } from '@modelcontextprotocol/client';

import { APP_PANEL_META, AppPanel } from '../contract/app';
import { MolspaceError, type LocatedError } from '../contract/errors';
import { PanelContent, type MoleculesContent } from '../contract/panel';
import type { Depiction } from '../ketcher/depictMessages';
import type { Depict } from '../panel/depictor';
import { checkPanelBounds } from '../panel/panelContent';
import type { FollowLink } from '../panel/panelLinks';
import { PanelRenderer } from '../panel/panelRenderer';
import { policyRenderMime } from '../resources/resourceSanitizer';

/** The panel styles of the notebook (`style/base.css`'s `.molspace-panel*` rules, put in by the build). */
declare const __MOLSPACE_PANEL_CSS__: string;

/** JupyterLab's variables the panel styles use, for the App's light and dark themes. */
const APP_PANEL_VARIABLES = `
:root { --jp-content-font-size1: 13px; --jp-content-font-color1: inherit; --jp-ui-font-color1: inherit;
  --jp-ui-font-color2: #616161; --jp-layout-color1: #fff; --jp-layout-color2: #eee; --jp-border-color1: #bdbdbd;
  --jp-border-color2: #e0e0e0; --jp-error-color1: #c62828; --jp-brand-color1: #1976d2; }
html[data-theme="dark"] { --jp-ui-font-color2: #bdbdbd; --jp-layout-color1: #111; --jp-layout-color2: #2a2a2a;
  --jp-border-color1: #616161; --jp-border-color2: #424242; --jp-error-color1: #ef5350; --jp-brand-color1: #64b5f6; }
#molspace-app-panel { padding: 4px 8px; }
#molspace-app-panel .molspace-panel-body { max-height: 600px; }
.molspace-panel-molecule-note { white-space: pre-wrap; overflow-wrap: anywhere; }
`;

/** JupyterLab's markdown parser options (`@jupyterlab/markedparser-extension`), without highlighting or mermaid. */
function markdownParser(): IRenderMime.IMarkdownParser {
  // Loaded on the first markdown, as the plugin loads them (one script here: no chunk is fetched).
  let parser: Promise<{ parse(text: string, options: { async: true; gfm: true }): Promise<string> }> | null = null;
  const load = async () => {
    const [{ marked }, { gfmHeadingId }, { mangle }] = await Promise.all([
      import('marked'),
      import('marked-gfm-heading-id'),
      import('marked-mangle')
    ]);
    return marked.use(gfmHeadingId(), mangle());
  };
  return {
    render: async (content: string) => {
      parser ??= load();
      return (await parser).parse(content, { async: true, gfm: true });
    }
  };
}

/**
 * JupyterLab's Vega renderer, told to evaluate Vega expressions with Vega's interpreter
 * (vega-embed's `ast: true`): its default compiles them with `new Function`, which the App's CSP
 * (no `'unsafe-eval'`, in a chat host and in an exported file) refuses.
 */
class InterpretedVega extends RenderedVega {
  private readonly mime: string;

  constructor(options: IRenderMime.IRendererOptions) {
    super(options);
    this.mime = options.mimeType;
  }

  override renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const metadata = (model.metadata[this.mime] ?? {}) as { embed_options?: Record<string, unknown> };
    return super.renderModel({
      data: model.data,
      trusted: model.trusted,
      metadata: { ...model.metadata, [this.mime]: { ...metadata, embed_options: { ...metadata.embed_options, ast: true } } },
      setData: options => model.setData(options)
    });
  }
}

const interpretedVegaFactory: IRenderMime.IRendererFactory = {
  ...vegaRendererFactory,
  createRenderer: options => new InterpretedVega(options)
};

/** A rendermime registry as a notebook's, for panels: markdown (untrusted, sanitized) and Vega-Lite. */
export function appRenderMime(): RenderMimeRegistry {
  const registry = new RenderMimeRegistry({
    initialFactories: [markdownRendererFactory, interpretedVegaFactory],
    sanitizer: new Sanitizer(),
    markdownParser: markdownParser()
  });
  // The page's image policy with no hosts: only data: images (the App's CSP loads no others).
  return policyRenderMime(registry, { hosts: [], pageOrigin: null }) as RenderMimeRegistry;
}

/** The located error of a pointer into `_meta["molspace/panel"]`. */
function badPanel(message: string, where: string, details: Record<string, unknown> = {}): MolspaceError {
  return new MolspaceError(
    'VALIDATION_FAILED',
    message,
    where,
    'Call render_panel again with content that matches its schema (describe {tool: "render_panel"}).',
    details
  );
}

/** The panel a result carries, or null; its content checked against the contract's shape. */
export function appPanelOf(result: CallToolResult): { panel: AppPanel; content: PanelContent } | null {
  const raw = (result._meta as Record<string, unknown> | undefined)?.[APP_PANEL_META];
  if (raw === undefined) {
    return null;
  }
  const panel = AppPanel.safeParse(raw);
  if (!panel.success) {
    const issue = panel.error.issues[0];
    throw badPanel(
      `The result's panel is malformed: ${issue?.message ?? 'invalid'}.`,
      `/_meta/molspace~1panel/${(issue?.path ?? []).join('/')}`
    );
  }
  const content = PanelContent.safeParse(panel.data.content);
  if (!content.success) {
    const issue = content.error.issues[0];
    throw badPanel(
      `The panel's content does not match render_panel's schema: ${issue?.message ?? 'invalid'}.`,
      `/content/${(issue?.path ?? []).join('/')}`
    );
  }
  return { panel: panel.data, content: content.data };
}

/** Base64 of UTF-8 text (a `Depiction`'s SVG). */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * The grid's `Depict`: the server's RDKit SVGs by SMILES; a molecule without one gets a note
 * (its SMILES as text, located at its first index, and why).
 */
export function serverDepictions(panel: AppPanel, grid: MoleculesContent): Depict {
  const first = new Map<string, number>();
  (grid.molecules ?? []).forEach((m, i) => {
    if (!first.has(m.smiles)) {
      first.set(m.smiles, i);
    }
  });
  const why = panel.note ?? 'The server drew none.';
  return smiles =>
    Promise.resolve(
      smiles.map((s): Depiction => {
        const svg = panel.depictions?.[s];
        if (svg !== undefined && /^\s*(<\?xml[^>]*\?>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/.test(svg)) {
          return { svg: base64(svg), error: null };
        }
        return {
          svg: null,
          error:
            `${s}\nNo picture here (at /content/molecules/${first.get(s) ?? 0}/smiles): ${why} ` +
            "Ketcher's Indigo engine is WebAssembly, which this chat's App may not run; open JupyterLab for its depictions."
        };
      })
    );
}

/** The panel view of the App: one panel at a time, rendered by {@link PanelRenderer}. */
export class AppPanelView {
  private renderer: PanelRenderer | null = null;
  private readonly rendermime = appRenderMime();
  private revision = 0;

  constructor(private readonly host: HTMLElement) {
    if (!document.getElementById('molspace-app-panel-style')) {
      const style = document.createElement('style');
      style.id = 'molspace-app-panel-style';
      style.textContent = APP_PANEL_VARIABLES + __MOLSPACE_PANEL_CSS__;
      document.head.append(style);
    }
  }

  /**
   * Check and render `panel`; its links are followed by `follow` (none: no link buttons).
   *
   * @returns the line the model is told.
   * @throws MolspaceError the located refusal of the checks or of the renderer (also shown in the panel).
   */
  async show(panel: AppPanel, content: PanelContent, follow: FollowLink | null = null): Promise<string> {
    this.renderer?.dispose();
    const depict: Depict = content.type === 'molecules' ? serverDepictions(panel, content) : () => Promise.resolve([]);
    // No open-in-Ketcher (Indigo cannot run here); links only where `follow` is given (a page docked the panel).
    const renderer = new PanelRenderer(() => this.rendermime, null, depict, follow);
    this.renderer = renderer;
    renderer.setIdentity(panel.panelId, panel.title);
    this.host.replaceChildren(renderer.node);
    try {
      checkPanelBounds(content);
      await renderer.render(content, ++this.revision);
    } catch (e) {
      const error: LocatedError = MolspaceError.from(e, '/content').toJSON();
      renderer.showError(error);
      throw MolspaceError.from(e, '/content');
    }
    return summaryLine(panel, content);
  }

  dispose(): void {
    this.renderer?.dispose();
    this.renderer = null;
  }
}

/** What the model is told once a panel is rendered: its type and size, never its text. */
function summaryLine(panel: AppPanel, content: PanelContent): string {
  const size =
    content.type === 'markdown'
      ? `${content.markdown.length} characters of markdown`
      : content.type === 'table'
        ? `a table of ${content.rows.length} rows × ${content.columns.length} columns`
        : content.type === 'chart'
          ? 'a Vega-Lite chart'
          : `a grid of ${content.molecules?.length ?? 0} molecules, ${Object.keys(panel.depictions ?? {}).length} drawn by the server`;
  return `molspace App: panel "${panel.title}" rendered: ${size}.`;
}
