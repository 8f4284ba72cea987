/**
 * The depiction frame's work on one request (`./depict.ts`), given Indigo's
 * struct service: each SMILES depicted as SVG (base64), each molfile
 * converted to SMILES, Indigo's refusal of one kept as that one's error.
 * Apart from `./depict.ts` so that it can be tested with a stand-in engine
 * (issue 23).
 */
import { ChemicalMimeType, type StructService } from 'ketcher-core';
import { DEPICT_TAG, type Conversion, type ConvertReply, type Depiction, type DepictReply } from '../depictMessages';
import { engine, messageOf, serial } from './engineQueue';
import type { DepictFrameRequest } from './inbox';

/** base64 of a UTF-8 string (Indigo's SVG answer is text). */
function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * The engine's error as text, whatever it threw: a reply whose error is not a
 * string is dropped by the page (which then waits out its deadline), and one
 * that cannot be written down would leave the request unanswered.
 */
function errorText(e: unknown): string {
  try {
    const text = messageOf(e);
    if (typeof text === 'string') {
      return text;
    }
  } catch {
    // e.g. a cycle or a BigInt: JSON cannot write it
  }
  return `Indigo failed (${Object.prototype.toString.call(e)})`;
}

/** The parts of Indigo's struct service the depiction frame uses. */
export type DepictService = Pick<StructService, 'generateImageAsBase64' | 'convert'>;

async function depictOne(service: DepictService, smiles: string): Promise<Depiction> {
  try {
    const answer = await serial(() =>
      engine(() => service.generateImageAsBase64(smiles, { outputFormat: 'svg', backgroundColor: '1, 1, 1', 'render-coloring': true }))
    );
    if (typeof answer !== 'string' || answer.trim() === '') {
      // The page takes no empty image: it would drop the whole reply and wait out its deadline.
      return { svg: null, error: 'Indigo drew no image' };
    }
    // The standalone service answers SVG as text; base64 it for a data: URL.
    const svg = answer.trimStart().startsWith('<') ? base64(answer) : answer;
    return { svg, error: null };
  } catch (e) {
    return { svg: null, error: errorText(e) };
  }
}

async function convertOne(service: DepictService, molfile: string): Promise<Conversion> {
  try {
    const answer = await serial(() => engine(() => service.convert({ struct: molfile, output_format: ChemicalMimeType.DaylightSmiles })));
    const smiles = typeof answer?.struct === 'string' ? answer.struct.trim() : '';
    return smiles ? { smiles, error: null } : { smiles: null, error: 'Indigo read no atoms' };
  } catch (e) {
    return { smiles: null, error: errorText(e) };
  }
}

/** The reply to one request: one depiction or conversion per item, in its order. */
export async function answerDepict(service: DepictService, request: DepictFrameRequest): Promise<DepictReply | ConvertReply> {
  const { id } = request;
  if (request.op === 'convert') {
    const smiles = await Promise.all(request.molfiles.map(m => convertOne(service, m)));
    return { tag: DEPICT_TAG, id, smiles };
  }
  const images = await Promise.all(request.smiles.map(s => depictOne(service, s)));
  return { tag: DEPICT_TAG, id, images };
}
