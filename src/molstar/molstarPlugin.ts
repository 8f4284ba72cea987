/**
 * One Mol* plugin mounted in a host element: what the Story viewer and the
 * structure Viewer both start from (docs/architecture.md, "Page").
 */
import { MolViewSpec } from 'molstar/lib/extensions/mvs/behavior';
import { Canvas3DContext } from 'molstar/lib/mol-canvas3d/canvas3d';
import { PluginConfig } from 'molstar/lib/mol-plugin/config';
import { PluginContext } from 'molstar/lib/mol-plugin/context';
import { DefaultPluginSpec, PluginSpec } from 'molstar/lib/mol-plugin/spec';
import { AssetManager } from 'molstar/lib/mol-util/assets';
import { Color } from 'molstar/lib/mol-util/color';

import { MolspaceError } from '../contract/errors';
import { boundLog } from './boundedLog';
import { keepPostprocessingFlat } from './flatPostprocessing';
import { giveSpareContext, takeSpareContext } from './webglContextPool';
import { keepSoftwareProps } from './softwareCanvas';

/** The plugin a WebGL context currently serves (a context outlives plugins: `./webglContextPool.ts`). */
const contextOwner = new WeakMap<Canvas3DContext, PluginContext>();

/** Background colours (as `#rrggbb`) when the scene sets none. */
export const LIGHT_BACKGROUND = '#ffffff';
export const DARK_BACKGROUND = '#111111';

/**
 * True when WebGL is rendered in software (SwiftShader, llvmpipe...), read from
 * the `WEBGL_debug_renderer_info` extension when the browser exposes it.
 */
export function isSoftwareRenderer(plugin: PluginContext): boolean {
  const gl = plugin.canvas3d?.webgl.gl;
  if (!gl) {
    return false;
  }
  const info = gl.getExtension('WEBGL_debug_renderer_info');
  const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER) ?? '');
  return /swiftshader|llvmpipe|softpipe|software/i.test(renderer);
}

/**
 * A new WebGL context on a new canvas in `container`, with the attributes and
 * props Mol* would give its own (`PluginContext._initViewer`, read from the
 * plugin's config); it follows the size of whichever plugin owns it. The
 * container goes with the context (Mol*'s input observer watches it).
 *
 * @throws Error when the browser gives no WebGL context.
 */
function newCanvas3dContext(plugin: PluginContext, container: HTMLElement): Canvas3DContext {
  const config = plugin.config;
  const canvas = document.createElement('canvas');
  // Mol*'s input observer follows the size of the canvas's parent from its creation on.
  container.append(canvas);
  const context: Canvas3DContext = Canvas3DContext.fromCanvas(
    canvas,
    new AssetManager(),
    {
      antialias: !(config.get(PluginConfig.General.DisableAntialiasing) ?? false),
      preserveDrawingBuffer: !(config.get(PluginConfig.General.DisablePreserveDrawingBuffer) ?? false),
      preferWebGl1: config.get(PluginConfig.General.PreferWebGl1) || false,
      failIfMajorPerformanceCaveat: !(config.get(PluginConfig.General.AllowMajorPerformanceCaveat) ?? false),
      powerPreference: config.get(PluginConfig.General.PowerPreference) || 'high-performance',
      handleResize: () => {
        const owner = contextOwner.get(context);
        if (owner) {
          owner.handleResize();
        }
      }
    },
    {
      pixelScale: config.get(PluginConfig.General.PixelScale) || 1,
      pickScale: config.get(PluginConfig.General.PickScale) || 0.25,
      transparency: config.get(PluginConfig.General.Transparency) || 'wboit',
      resolutionMode: config.get(PluginConfig.General.ResolutionMode) || 'auto'
    }
  );
  return context;
}

/**
 * Mol* resizes its canvas to its container whenever the container's size
 * changes, and setting a canvas's size clears its frame. JupyterLab's `full`
 * windowing hides cells out of the window (`display: none`: size 0) and shows
 * them again at their old size; without this the canvas would be cleared
 * there and redrawn when shown (on software WebGL one long frame, after a
 * blank). So a resize to a hidden container, or to the size the canvas
 * already has, does nothing.
 */
function keepFrameWhileHidden(plugin: PluginContext): void {
  const resize = plugin.handleResize;
  const guarded = () => {
    const context = plugin.canvas3dContext;
    const container = context?.canvas?.parentElement;
    if (context?.canvas && container) {
      const { offsetWidth: w, offsetHeight: h } = container;
      if (w === 0 || h === 0) {
        return;
      }
      const scale = window.devicePixelRatio * context.pixelScale;
      const canvas = context.canvas;
      if (canvas.width === Math.round(scale * w) && canvas.height === Math.round(scale * h) && canvas.style.width === `${w}px`) {
        return;
      }
    }
    resize();
  };
  Object.defineProperty(plugin, 'handleResize', { value: guarded, configurable: true, writable: true });
}

/**
 * Create a Mol* plugin with the MolViewSpec behaviour and mount its canvas in
 * `host` (positioned, with a height; the plugin's container fills it). The
 * plugin starts on a spare WebGL context when a parked viewer left one
 * (`./webglContextPool.ts`: its shader programs are linked already), else on a
 * new one. The canvas is focusable (the wheel zooms only once it is focused,
 * `./wheelGuard.ts`).
 *
 * @throws MolspaceError `INTERNAL` when WebGL is unavailable (e.g. too many live contexts).
 */
export async function createMolstarPlugin(host: HTMLElement, dark: boolean): Promise<PluginContext> {
  const base = DefaultPluginSpec();
  const spec: PluginSpec = {
    ...base,
    behaviors: [...base.behaviors, PluginSpec.Behavior(MolViewSpec)],
    canvas3d: { renderer: { backgroundColor: Color.fromHexStyle(dark ? DARK_BACKGROUND : LIGHT_BACKGROUND) } }
  };
  const plugin = new PluginContext(spec);
  keepFrameWhileHidden(plugin);
  await plugin.init();
  boundLog(plugin);
  let ok = false;
  let reason = '';
  let context: Canvas3DContext | null = takeSpareContext();
  try {
    // What Mol*'s PluginContainer would build: a box filling the host, the canvas in it.
    let container = context?.canvas?.parentElement ?? null;
    if (!context || !container) {
      context?.dispose();
      container = document.createElement('div');
      container.className = 'molspace-molstar-container';
      Object.assign(container.style, {
        position: 'absolute',
        left: '0',
        top: '0',
        right: '0',
        bottom: '0',
        userSelect: 'none',
        touchAction: 'manipulation'
      });
      context = newCanvas3dContext(plugin, container);
    }
    contextOwner.set(context, plugin);
    host.append(container);
    ok = await plugin.initViewerAsync(context.canvas!, container as HTMLDivElement, context);
  } catch (e) {
    ok = false;
    reason = e instanceof Error ? e.message : String(e);
  }
  if (!ok || !plugin.canvas3d) {
    plugin.dispose();
    context?.dispose();
    throw new MolspaceError(
      'INTERNAL',
      `The 3D viewer could not start: WebGL is not available in this page${reason ? ` (${reason})` : ''}.`,
      'viewer',
      'Enable WebGL (hardware acceleration) in the browser, or close other 3D viewers and reload the page.'
    );
  }
  keepPostprocessingFlat(plugin.canvas3d);
  if (isSoftwareRenderer(plugin)) {
    keepSoftwareProps(plugin.canvas3d);
  }
  const canvas = host.querySelector('canvas');
  if (canvas) {
    canvas.tabIndex = 0;
    canvas.setAttribute('aria-label', 'Molecular 3D view');
  }
  return plugin;
}

/**
 * Dispose a plugin made by {@link createMolstarPlugin}. With `keepContext`
 * (a viewer parked by the budget) its WebGL context is kept as a spare for
 * the next viewer (`./webglContextPool.ts`); else the context is freed.
 */
export function disposeMolstarPlugin(plugin: PluginContext, keepContext = false): void {
  const context = plugin.canvas3dContext;
  plugin.dispose({ doNotDisposeCanvas3DContext: true });
  if (!context) {
    return;
  }
  contextOwner.delete(context);
  if (keepContext) {
    giveSpareContext(context);
  } else {
    context.canvas?.parentElement?.remove();
    context.dispose();
  }
}
