/**
 * The App's loader: the only script in its HTML resource (`ui://molspace/viewer`).
 *
 * Hosts cap each `ui://` resource (512 KiB–1 MiB in the wild) and let an App load
 * no undeclared network, so the Mol* code cannot ride in the HTML. The loader
 * connects to the host (MCP Apps `App`, `ui/initialize`), reads the App's script
 * parts back through the host (`resources/read` of the URIs the HTML lists in
 * `<meta name="molspace-app-parts">`), joins them and runs them as one inline
 * script, which the spec's default CSP allows (no `eval`, no `blob:`). Tool results
 * that arrive meanwhile are kept for the App (`./appHandoff.ts`).
 */
import { App } from '@modelcontextprotocol/ext-apps';

import { MolspaceError } from '../contract/errors';
import { HANDOFF_KEY, ResultQueue, STARTED_KEY, type AppHandoff } from './appHandoff';
import { markState, showError } from './appStatus';

declare const __MOLSPACE_VERSION__: string;

function partUris(): string[] {
  const meta = document.querySelector('meta[name="molspace-app-parts"]');
  return (meta?.getAttribute('content') ?? '').split(/\s+/).filter(Boolean);
}

async function readPart(app: App, uri: string): Promise<string> {
  const read = await app.readServerResource({ uri });
  const first = read.contents[0];
  if (!first || !('text' in first) || typeof first.text !== 'string') {
    throw new MolspaceError(
      'INTERNAL',
      `The host's answer for ${uri} has no text.`,
      uri,
      'Reload the App; if it fails again, reinstall molspace.',
      {
        uri
      }
    );
  }
  return first.text;
}

async function load(): Promise<void> {
  markState('loading', 'Loading the viewer…');
  const results = new ResultQueue();
  const app = new App({ name: 'molspace', version: __MOLSPACE_VERSION__ }, {}, { autoResize: true });
  app.ontoolresult = result => results.push(result);
  await app.connect();
  const uris = partUris();
  if (!uris.length) {
    throw new MolspaceError('INTERNAL', 'The App HTML lists no script parts.', 'meta[name=molspace-app-parts]', 'Reinstall molspace.', {});
  }
  const parts = await Promise.all(uris.map(uri => readPart(app, uri)));
  const handoff: AppHandoff = {
    dark: () => app.getHostContext()?.theme === 'dark',
    // A host without model context refuses it: the App goes on.
    tell: (text, structured) =>
      void app
        .updateModelContext({ content: [{ type: 'text', text }], ...(structured ? { structuredContent: structured } : {}) })
        .catch(() => undefined),
    onResult: listener => results.onResult(listener),
    call: (name, args) => app.callServerTool({ name, arguments: args }),
    read: uri => app.readServerResource({ uri })
  };
  (globalThis as Record<string, unknown>)[HANDOFF_KEY] = handoff;
  const script = document.createElement('script');
  script.textContent = parts.join('');
  let blocked = false;
  let thrown: string | null = null;
  const onBlocked = () => (blocked = true);
  const onError = (e: ErrorEvent) => (thrown ??= String(e.message));
  window.addEventListener('securitypolicyviolation', onBlocked);
  window.addEventListener('error', onError);
  try {
    // An inline script runs as it is inserted.
    document.head.appendChild(script);
  } finally {
    window.removeEventListener('securitypolicyviolation', onBlocked);
    window.removeEventListener('error', onError);
  }
  if (!(globalThis as Record<string, unknown>)[STARTED_KEY]) {
    if (thrown !== null || !blocked) {
      throw new MolspaceError(
        'INTERNAL',
        `The App's script failed as it started: ${thrown ?? 'it did not run'}.`,
        'App loader',
        'Reload the App; if it fails again, report it with this message (open JupyterLab and call open there meanwhile).',
        {}
      );
    }
    throw new MolspaceError(
      'FORBIDDEN',
      "The host's Content Security Policy blocked the App's script.",
      'App loader',
      "Use a host that allows inline script in MCP Apps (the spec's default CSP does), or open JupyterLab and call open there.",
      {}
    );
  }
}

load().catch(e => {
  showError(MolspaceError.from(e, 'App loader').toJSON());
});
