/**
 * One Mol* plugin mounted in a host element: what the Story viewer and the
 * structure Viewer both start from (docs/architecture.md, "Page").
 */
import { MolViewSpec } from 'molstar/lib/extensions/mvs/behavior';
import { PluginContext } from 'molstar/lib/mol-plugin/context';
import { DefaultPluginSpec, PluginSpec } from 'molstar/lib/mol-plugin/spec';
import { Color } from 'molstar/lib/mol-util/color';

import { MolspaceError } from '../contract/errors';

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
 * Create a Mol* plugin with the MolViewSpec behaviour and mount its canvas in
 * `host` (positioned, with a height; Mol*'s container fills it). The canvas is
 * focusable (the wheel zooms only once it is focused, `./wheelGuard.ts`).
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
  await plugin.init();
  let ok = false;
  try {
    ok = await plugin.mountAsync(host);
  } catch {
    ok = false;
  }
  if (!ok || !plugin.canvas3d) {
    plugin.dispose();
    throw new MolspaceError(
      'INTERNAL',
      'The 3D viewer could not start: WebGL is not available in this page.',
      'viewer',
      'Enable WebGL (hardware acceleration) in the browser, or close other 3D viewers and reload the page.'
    );
  }
  if (isSoftwareRenderer(plugin)) {
    // Software WebGL (no GPU: CI, Binder, many VMs): Mol*'s temporal multi-sampling and
    // ambient occlusion keep redrawing refinement frames that each hold the page's main
    // thread for about a second, and every call an agent or a cell makes waits behind them.
    plugin.canvas3d.setProps(props => {
      props.multiSample.mode = 'off';
      props.postprocessing.occlusion = { name: 'off', params: {} };
    });
  }
  const canvas = host.querySelector('canvas');
  if (canvas) {
    canvas.tabIndex = 0;
    canvas.setAttribute('aria-label', 'Molecular 3D view');
  }
  return plugin;
}
