/**
 * The answer to one operation, as both wires carry it: the bridge's `result`
 * frame (keyed by `callId`) and the kernel's `result` message (keyed by
 * `requestId`) hold the same fields after their key.
 */
import { z } from 'zod';
import { LocatedError } from './errors';

/** An image a tool returns beside its structured content (MCP image content), e.g. a screenshot. */
export const ImageMimeType = z.enum(['image/png', 'image/jpeg', 'image/webp']);
export type ImageMimeType = z.infer<typeof ImageMimeType>;

export const ResultImage = z.object({
  mimeType: ImageMimeType,
  data: z.string().describe('The image, base64.')
});
export type ResultImage = z.infer<typeof ResultImage>;

/** Fields of a successful answer: what MCP returns as `structuredContent` and text content. */
export const RESULT_OK_FIELDS = {
  type: z.literal('result'),
  ok: z.literal(true),
  structuredContent: z.record(z.string(), z.unknown()).describe("The tool's output, valid against its output schema."),
  text: z.string().describe('The same answer in one or two sentences.'),
  images: z.array(ResultImage).max(4).optional().describe('Images after the text content (MCP image content).')
};

/** Fields of a failed answer. */
export const RESULT_FAILED_FIELDS = {
  type: z.literal('result'),
  ok: z.literal(false),
  error: LocatedError
};

/**
 * Fields of a result that waits for the person (`request_persist`): a
 * pending answer is a success, not an error; call again (after
 * `retryAfterMs`, or at once with `waitMs`) to learn the answer.
 */
export const PendingFields = {
  status: z.enum(['done', 'pending']).optional().describe('pending: the person has not answered yet.'),
  retryAfterMs: z.number().int().min(0).optional().describe('pending: call again after this long.'),
  waitingFor: z.string().optional().describe('pending: what the person must do.')
};
