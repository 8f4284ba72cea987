/**
 * The first step of each frame's message handler, kept free of Ketcher and
 * Indigo so it can be tested (and fuzzed, issue 23) on its own: which
 * messages a frame takes, and as what. The editor frame (`./main.ts`) and the
 * depiction frame (`./depict.ts`) take only messages from their parent window
 * and their own origin that parse against their schemas
 * (`../frameMessages.ts`, `../depictMessages.ts`); anything else is ignored.
 */
import { FrameRequest } from '../frameMessages';
import { ConvertRequest, DepictRequest } from '../depictMessages';

/** What a frame's `message` listener is given (a `MessageEvent`'s fields that it reads). */
export interface Inbound {
  readonly source: unknown;
  readonly origin: string;
  readonly data: unknown;
}

/** Is `event` from `parent` and of `origin` (the frame's own)? */
function fromParent(event: Inbound, parent: unknown, origin: string): boolean {
  return event.source === parent && event.origin === origin;
}

/** The editor frame's request in `event`, or null when the message is not one (it is then ignored). */
export function editorRequest(event: Inbound, parent: unknown, origin: string): FrameRequest | null {
  if (!fromParent(event, parent, origin)) {
    return null;
  }
  const request = FrameRequest.safeParse(event.data);
  return request.success ? request.data : null;
}

/** A depiction frame request: SMILES to depict, or molfiles to convert to SMILES. */
export type DepictFrameRequest = { op: 'convert'; id: number; molfiles: string[] } | { op: 'depict'; id: number; smiles: string[] };

/**
 * The depiction frame's request in `event`, or null when the message is not
 * one (ignored). A message that parses as both is a conversion.
 */
export function depictRequest(event: Inbound, parent: unknown, origin: string): DepictFrameRequest | null {
  if (!fromParent(event, parent, origin)) {
    return null;
  }
  const convert = ConvertRequest.safeParse(event.data);
  if (convert.success) {
    return { op: 'convert', id: convert.data.id, molfiles: convert.data.molfiles };
  }
  const request = DepictRequest.safeParse(event.data);
  return request.success ? { op: 'depict', id: request.data.id, smiles: request.data.smiles } : null;
}
