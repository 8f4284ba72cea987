/**
 * Start this page's bridge to the MCP gateway. Loaded lazily after
 * JupyterLab has restored, so the contract (zod) and the Dispatcher are not
 * on JupyterLab's start path.
 */
import type { IMolspacePage } from '../tokens';
import { BridgeClient } from './bridgeClient';

declare global {
  interface Window {
    /** The page's bridge and widget registry, for tests and debugging. */
    molspace?: { bridge: BridgeClient; registry: IMolspacePage['registry'] };
  }
}

/** Connect the page; exposes `window.molspace = {bridge, registry}`. */
export function startBridge(page: IMolspacePage): BridgeClient {
  const bridge = new BridgeClient({ dispatcher: page.dispatcher, registry: page.registry });
  bridge.connect();
  window.molspace = { bridge, registry: page.registry };
  return bridge;
}
