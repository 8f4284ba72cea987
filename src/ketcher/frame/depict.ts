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
import { ChemicalMimeType, type StructService } from 'ketcher-core';
import {
  ConvertRequest,
  DEPICT_TAG,
  DepictRequest,
  type Conversion,
  type ConvertReply,
  type Depiction,
  type DepictEvent,
  type DepictReply
} from '../depictMessages';
import { engine, messageOf, serial } from './engineQueue';

function post(message: DepictEvent | DepictReply | ConvertReply): void {
  window.parent.postMessage(message, window.location.origin);
}

/** base64 of a UTF-8 string (Indigo's SVG answer is text). */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

async function depictOne(service: StructService, smiles: string): Promise<Depiction> {
  try {
    const answer = await serial(() =>
      engine(() => service.generateImageAsBase64(smiles, { outputFormat: 'svg', backgroundColor: '1, 1, 1', 'render-coloring': true }))
    );
    // The standalone service answers SVG as text; base64 it for a data: URL.
    const svg = answer.trimStart().startsWith('<') ? base64(answer) : answer;
    return { svg, error: null };
  } catch (e) {
    return { svg: null, error: messageOf(e) };
  }
}

async function convertOne(service: StructService, molfile: string): Promise<Conversion> {
  try {
    const answer = await serial(() => engine(() => service.convert({ struct: molfile, output_format: ChemicalMimeType.DaylightSmiles })));
    const smiles = answer.struct.trim();
    return smiles ? { smiles, error: null } : { smiles: null, error: 'Indigo read no atoms' };
  } catch (e) {
    return { smiles: null, error: messageOf(e) };
  }
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
    if (event.source !== window.parent || event.origin !== window.location.origin) {
      return;
    }
    const convert = ConvertRequest.safeParse(event.data);
    if (convert.success) {
      const { id, molfiles } = convert.data;
      void Promise.all(molfiles.map(m => convertOne(service, m))).then(smiles => post({ tag: DEPICT_TAG, id, smiles }));
      return;
    }
    const request = DepictRequest.safeParse(event.data);
    if (!request.success) {
      return;
    }
    const { id, smiles } = request.data;
    void Promise.all(smiles.map(s => depictOne(service, s))).then(images => post({ tag: DEPICT_TAG, id, images }));
  });
  post({ tag: DEPICT_TAG, event: 'ready', indigo: String(info.indigoVersion ?? 'unknown') });
}

start().catch(e => post({ tag: DEPICT_TAG, event: 'failed', error: messageOf(e) }));
