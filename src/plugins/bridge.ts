/** `molspace:bridge` connects this page to the MCP gateway's bridge, then warms up what a first agent call needs. */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IMolspace } from '../tokens';
import { afterRestore } from './afterRestore';

export const bridgePlugin: JupyterFrontEndPlugin<void> = {
  id: 'molspace:bridge',
  description: 'Connects this JupyterLab page to the molspace MCP gateway.',
  autoStart: true,
  requires: [IMolspace],
  activate: (app: JupyterFrontEnd, molspace: IMolspace) => {
    void afterRestore(
      app,
      molspace,
      () => import('../bridge/startBridge'),
      (page, { startBridge }) => startBridge(page),
      'the MCP bridge could not start; agents cannot reach this page.'
    )
      // Then, in idle time, the code an agent's first open / ketcher_open needs (src/warmUp.ts).
      .then(() => import('../warmUp'))
      .then(({ warmUp }) => warmUp())
      .catch(e => console.debug('molspace: warm-up skipped', e));
  }
};
