/**
 * The page <-> gateway bridge protocol: JSON text frames over the
 * authenticated websocket `{base_url}molspace/bridge`.
 *
 * page -> gateway
 *   `hello`   first frame: page id, molspace version, focus, widget count
 *   `focus`   the page gained or lost focus (routing follows the most recent focus)
 *   `summary` the widget count changed
 *   `result`  the answer to one `call`
 *   `reads`   read-mirror answers that changed (set) or went (drop); sent
 *             before any `result` of the change that caused them
 *   `fallback` a notebook widget's static fallback for saved notebooks (`staticFallback.ts`)
 * gateway -> page
 *   `welcome` the hello was accepted
 *   `call`    run one tool through the page's Dispatcher
 *   `served`  reads the gateway answered from this page's read mirror (they never
 *             reached the Dispatcher), batched, for the activity panel
 *
 * The gateway closes a page's socket with one of {@link BRIDGE_CLOSE_CODES}
 * when it will not take the page as it is; any other close is a lost
 * connection, and the page reconnects.
 */
import { z } from 'zod';
import { LIMITS } from './limits';
import { RESULT_FAILED_FIELDS, RESULT_OK_FIELDS } from './result';
import { PageInfo } from './workspace';
import { PageFallback } from './staticFallback';

export const BRIDGE_PROTOCOL_VERSION = 1;

/** Websocket close codes the gateway sends (molspace/gateway: pages.py, bridge_frames.py). */
export const BRIDGE_CLOSE_CODES = {
  /** A newer connection with this page's id (of the same user) replaced this one, e.g. a duplicated tab. */
  replaced: 4000,
  /** The page speaks another bridge protocol than the server: the page must be reloaded. */
  unsupportedProtocol: 4001,
  /** The page id belongs to a page of another user. */
  pageIdTaken: 4003
} as const;

export const PageHello = z.object({
  type: z.literal('hello'),
  protocol: z.literal(BRIDGE_PROTOCOL_VERSION),
  pageId: z.string().min(1).max(128),
  version: z.string(),
  focused: z.boolean(),
  widgets: z.number().int().min(0)
});
export const PageFocus = z.object({ type: z.literal('focus'), focused: z.boolean() });
export const PageSummary = z.object({ type: z.literal('summary'), widgets: z.number().int().min(0) });
/** The answer to one `call`: the same fields as the kernel's `result` message, keyed by `callId`. */
export const PageResult = z.union([
  z.object({ ...RESULT_OK_FIELDS, callId: z.string() }),
  z.object({ ...RESULT_FAILED_FIELDS, callId: z.string() })
]);
export type PageResult = z.infer<typeof PageResult>;
/**
 * One read-mirror answer: what the page would answer `tool` called with
 * `args` (defaults left out, no `pageId`) now. `pages` is set for answers
 * that carry the gateway's page list (`observe`): the page computed it with
 * `pages: []`; `bytes` is the JSON size of that answer and `complete` says
 * nothing was cut by the read budget, so the gateway can fill the list in and
 * tell whether the page's answer would have been the same.
 */
export const MirroredRead = z.object({
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  structuredContent: z.record(z.string(), z.unknown()),
  text: z.string(),
  pages: z.object({ bytes: z.number().int().min(0), complete: z.boolean() }).optional()
});
export type MirroredRead = z.infer<typeof MirroredRead>;
export const PageReads = z.object({
  type: z.literal('reads'),
  set: z.array(MirroredRead),
  drop: z.array(z.object({ tool: z.string(), args: z.record(z.string(), z.unknown()) }))
});
export const PageMessage = z.union([PageHello, PageFocus, PageSummary, PageResult, PageReads, PageFallback]);
export type PageMessage = z.infer<typeof PageMessage>;

/** The MCP client that made a call, as it named itself at initialisation (`clientInfo`). */
export const CallClient = z.object({ name: z.string().max(200), version: z.string().max(100) });
export type CallClient = z.infer<typeof CallClient>;

/** Context the gateway adds to each call: which page runs it, which pages exist, which client asked. */
export const CallContext = z.object({
  pageId: z.string(),
  pages: z.array(PageInfo),
  client: CallClient.nullable().optional(),
  /** The gateway writes the file of this `export` to `.html` from the page's answer (its `app`): src/contract/export.ts. */
  writesHtml: z.boolean().optional(),
  /** A `render_panel` grid's first page drawn by the gateway's RDKit, SVG by SMILES (`GridDepictions`, checked where read): shown at once, Indigo draws the rest. */
  depictions: z.record(z.string(), z.unknown()).optional()
});
export type CallContext = z.infer<typeof CallContext>;

export const GatewayWelcome = z.object({
  type: z.literal('welcome'),
  pageId: z.string(),
  /** True: push the read mirror (`reads` frames); the gateway answers mirrored reads from it. */
  mirror: z.boolean().optional(),
  /** The server's clock when it sent this, ms since the epoch: the page's offset to it, for call deadlines. */
  serverTime: z.number().optional()
});
export const GatewayCall = z.object({
  type: z.literal('call'),
  callId: z.string(),
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  context: CallContext,
  deadlineMs: z.number().int().positive(),
  /** The server's clock when it sent the call (ms since the epoch): the deadline counts from then, not from when the page reads it. */
  sentAt: z.number().optional()
});
/**
 * One read the gateway answered from the page's read mirror: the tool, its
 * arguments as the agent sent them, the client that asked, when (ms since the
 * epoch) and how long the gateway took to answer (ms). Always answered ok: a
 * read the mirror cannot answer is relayed, and so runs through the Dispatcher.
 */
export const ServedRead = z.object({
  tool: z.string(),
  args: z.record(z.string(), z.unknown()),
  client: CallClient.nullable(),
  startedAt: z.number().min(0),
  durationMs: z.number().min(0)
});
export type ServedRead = z.infer<typeof ServedRead>;
/**
 * Reads answered from this page's mirror since the last `served` frame, oldest
 * first, at most one per {@link LIMITS.servedReadsBatchMs}; `dropped` counts
 * older ones left out beyond {@link LIMITS.activityEntries} (the page's log
 * would have dropped them at once).
 */
export const GatewayServed = z.object({
  type: z.literal('served'),
  reads: z.array(ServedRead).max(LIMITS.activityEntries),
  dropped: z.number().int().min(0)
});
export const GatewayMessage = z.union([GatewayWelcome, GatewayCall, GatewayServed]);
export type GatewayMessage = z.infer<typeof GatewayMessage>;
