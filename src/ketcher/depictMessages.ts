/**
 * The messages between a page and its hidden depiction frame
 * (`src/ketcher/frame/depict.ts`, one per page; docs/architecture.md,
 * "Report panels"): "depict these SMILES" → one SVG (base64) or Indigo's
 * error per SMILES; "convert these molfiles (SDF records) to SMILES" → one
 * SMILES or Indigo's error per molfile. Every message is checked against these schemas; one that
 * does not parse is dropped, except a tagged request with a finite id, which the frame
 * refuses, located (`frame/inbox.ts`).
 */
import { z } from 'zod';
import { LocatedError } from '../contract/errors';

/** Marks molspace's depiction messages among any other `postMessage` traffic. */
export const DEPICT_TAG = 'molspace-depict/1';

/** Most SMILES one request carries. */
export const DEPICT_BATCH = 100;

/** Page → frame: depict these SMILES, answered by one {@link DepictReply} with the same `id`. */
export const DepictRequest = z.object({
  tag: z.literal(DEPICT_TAG),
  id: z.number(),
  smiles: z.array(z.string()).max(DEPICT_BATCH)
});
export type DepictRequest = z.infer<typeof DepictRequest>;

/** One depiction: an SVG as base64, or Indigo's message for a SMILES it cannot read. */
export const Depiction = z.union([z.object({ svg: z.string().min(1), error: z.null() }), z.object({ svg: z.null(), error: z.string() })]);
export type Depiction = z.infer<typeof Depiction>;

/** Frame → page: the depictions of one request, in its order. */
export const DepictReply = z.object({
  tag: z.literal(DEPICT_TAG),
  id: z.number(),
  images: z.array(Depiction),
  /** The frame's refusal of the whole request (one it could not read): the page rejects with it. */
  located: LocatedError.optional()
});
export type DepictReply = z.infer<typeof DepictReply>;

/** Frame → page: the engine answers (`ready`) or failed to start. */
export const DepictEvent = z.discriminatedUnion('event', [
  z.object({ tag: z.literal(DEPICT_TAG), event: z.literal('ready'), indigo: z.string() }),
  z.object({ tag: z.literal(DEPICT_TAG), event: z.literal('failed'), error: z.string() })
]);
export type DepictEvent = z.infer<typeof DepictEvent>;

/** Page → frame: convert these molfiles to SMILES, answered by one {@link ConvertReply} with the same `id`. */
export const ConvertRequest = z.object({
  tag: z.literal(DEPICT_TAG),
  id: z.number(),
  molfiles: z.array(z.string()).max(DEPICT_BATCH)
});
export type ConvertRequest = z.infer<typeof ConvertRequest>;

/** One conversion: a SMILES, or Indigo's message for a molfile it cannot read. */
export const Conversion = z.union([
  z.object({ smiles: z.string().min(1), error: z.null() }),
  z.object({ smiles: z.null(), error: z.string() })
]);
export type Conversion = z.infer<typeof Conversion>;

/** Frame → page: the conversions of one request, in its order. */
export const ConvertReply = z.object({
  tag: z.literal(DEPICT_TAG),
  id: z.number(),
  smiles: z.array(Conversion),
  /** As {@link DepictReply}'s. */
  located: LocatedError.optional()
});
export type ConvertReply = z.infer<typeof ConvertReply>;
