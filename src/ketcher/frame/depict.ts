/**
 * The depiction frame: Ketcher's standalone Indigo engine without any editor
 * UI, in a hidden document of its own (one per page), answering "depict these
 * SMILES" with SVG and "convert these molfiles" with SMILES (messages: `../depictMessages.ts`; docs/architecture.md,
 * "Report panels").
 *
 * Built by `scripts/build-ketcher-frame.mjs` into `static/ketcher/depict.html`
 * beside the editor frame; the Indigo worker and WASM resolve from this
 * bundle's own URL.
 */
import { StandaloneStructServiceProvider } from 'ketcher-standalone/dist/binaryWasm';
import { DEPICT_TAG, type ConvertReply, type DepictEvent, type DepictReply } from '../depictMessages';
import { answerDepict } from './depictWork';
import { engine, messageOf, serial } from './engineQueue';
import { depictRefusal, depictRequest } from './inbox';

function post(message: DepictEvent | DepictReply | ConvertReply): void {
  window.parent.postMessage(message, window.location.origin);
}

/**
 * Indigo's load options for depictions. Ketcher's standalone service reads
 * its standard options from a Ketcher editor instance, which this frame does
 * not have; it is given these instead (the values Ketcher's editor sends).
 */
const STANDARD_OPTIONS = {
  'dearomatize-on-load': false,
  'aromaticity-model': 'generic',
  'smart-layout': true,
  'ignore-stereochemistry-errors': true,
  'mass-skip-error-on-pseudoatoms': false,
  'gross-formula-add-rsites': true,
  'gross-formula-add-isotopes': true,
  'ignore-no-chiral-flag': false,
  'aromatize-skip-superatoms': true
};

async function start(): Promise<void> {
  const service = new StandaloneStructServiceProvider().createStructService({});
  (service as unknown as { getStandardServerOptions: () => object }).getStandardServerOptions = () => ({ ...STANDARD_OPTIONS });
  const info = await serial(() => engine(() => service.info()));
  window.addEventListener('message', (event: MessageEvent) => {
    const request = depictRequest(event, window.parent, window.location.origin);
    if (request) {
      void answerDepict(service, request).then(post);
      return;
    }
    // Ours but unreadable (a page of another build): refused at once, located, not left to time out.
    const refusal = depictRefusal(event, window.parent, window.location.origin);
    if (refusal) {
      post(refusal);
    }
  });
  post({ tag: DEPICT_TAG, event: 'ready', indigo: String(info.indigoVersion ?? 'unknown') });
}

start().catch(e => post({ tag: DEPICT_TAG, event: 'failed', error: messageOf(e) }));
