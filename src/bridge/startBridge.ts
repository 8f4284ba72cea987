/**
 * Start this page's bridge to the MCP gateway. Loaded lazily after
 * JupyterLab has restored, so the contract (zod) and the Dispatcher are not
 * on JupyterLab's start path.
 */
import { Notification } from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';
import type { IMolspacePage } from '../tokens';
import { BridgeClient } from './bridgeClient';
import { ReadMirror } from './readMirror';
import { FallbackReporter } from '../fallback/fallbackReporter';

declare global {
  interface Window {
    /** The page's bridge, widget registry and Dispatcher, for tests and debugging. */
    molspace?: { bridge: BridgeClient; registry: IMolspacePage['registry']; dispatcher?: IMolspacePage['dispatcher'] };
  }
}

/**
 * Connect the page to `{base_url}molspace/bridge`, authenticated like
 * JupyterLab's own kernel websockets (token query parameter when the server
 * uses one; cookies otherwise), with the page's read mirror. Exposes
 * `window.molspace = {bridge, registry, dispatcher}`. Where no gateway serves the page
 * (a plain GET of the bridge's URL answers 404: JupyterLite, or the server extension is off),
 * the bridge stops and a JupyterLab notification says so, located, once.
 */
export function startBridge(page: IMolspacePage, settings = ServerConnection.makeSettings()): BridgeClient {
  let url = URLExt.join(settings.wsUrl, 'molspace', 'bridge');
  if (settings.token !== '' && settings.appendToken) {
    url += `?token=${encodeURIComponent(settings.token)}`;
  }
  const bridge = new BridgeClient({
    dispatcher: page.dispatcher,
    widgets: page.registry,
    url,
    WebSocket: settings.WebSocket,
    mirror: new ReadMirror({ registry: page.registry, dispatcher: page.dispatcher }),
    probe: async () => {
      const response = await ServerConnection.makeRequest(URLExt.join(settings.baseUrl, 'molspace', 'bridge'), {}, settings);
      return response.status;
    },
    onStopped: error => {
      Notification.warning(`molspace: ${error.message} ${error.fix}`, { autoClose: false });
    }
  });
  bridge.connect();
  // Static fallbacks of saved notebooks (docs/architecture.md, "Static fallback in saved notebooks").
  new FallbackReporter({
    registry: page.registry,
    executed: page.dispatcher.executed,
    send: frame => bridge.sendFallback(frame),
    welcomed: bridge.welcomed,
    // A saved editor's picture: the page's depiction frame (loaded on first use, as for molecule grids).
    depict: async smiles => {
      const { depictSmiles } = await import('../panel/depictor');
      return (await depictSmiles([smiles]))[0]?.svg ?? null;
    }
  });
  window.molspace = { bridge, registry: page.registry, dispatcher: page.dispatcher };
  return bridge;
}
