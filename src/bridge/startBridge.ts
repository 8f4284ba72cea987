/**
 * Start this page's bridge to the MCP gateway. Loaded lazily after
 * JupyterLab has restored, so the contract (zod) and the Dispatcher are not
 * on JupyterLab's start path.
 */
import { dispatcher, registry } from '../page';
import { BridgeClient } from './bridgeClient';

/** Connect the page; exposes `window.molspace = {bridge, registry}` for tests and debugging. */
export function startBridge(): BridgeClient {
  const bridge = new BridgeClient({ dispatcher, registry });
  bridge.connect();
  (window as unknown as { molspace?: unknown }).molspace = { bridge, registry };
  return bridge;
}
