/**
 * `molspace:plugin` provides the page services ({@link IMolspace}: widget
 * registry, Dispatcher, viewer budget, resource policy) and applies the
 * molspace settings (`schema/plugin.json` is this plugin's settings schema).
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
// Molspace is the provided service itself (17 lines); it loads the registry and Dispatcher lazily.
// eslint-disable-next-line jupyter/prefer-lazy-imports
import { Molspace } from '../molspace';
import { IMolspace } from '../tokens';

/** The services plugin; its id names the settings schema `schema/plugin.json`. */
const PLUGIN_ID = 'molspace:plugin';

export const servicesPlugin: JupyterFrontEndPlugin<IMolspace> = {
  id: PLUGIN_ID,
  description: 'The molspace page services (widget registry, Dispatcher, viewer budget) and their settings.',
  autoStart: true,
  provides: IMolspace,
  optional: [ISettingRegistry],
  activate: (_app: JupyterFrontEnd, settings: ISettingRegistry | null): IMolspace => {
    const molspace = new Molspace();
    if (settings) {
      settings
        .load(PLUGIN_ID)
        .then(s => {
          const apply = () => {
            const max = s.get('maxLiveViewers').composite;
            if (typeof max === 'number') {
              molspace.viewerBudget.setMaxLive(max);
            }
            const frames = s.get('trajectoryFrameBudget').composite;
            if (typeof frames === 'number') {
              molspace.viewerBudget.setFrameBudget(frames);
            }
            const hosts = s.get('resourceHosts').composite;
            if (Array.isArray(hosts)) {
              molspace.resourcePolicy.hosts = hosts.filter((h): h is string => typeof h === 'string');
            }
          };
          apply();
          s.changed.connect(apply);
        })
        .catch(e => console.warn('molspace: settings not loaded; using defaults', e));
    }
    return molspace;
  }
};
