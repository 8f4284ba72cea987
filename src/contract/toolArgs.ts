/**
 * The arguments many tools share (`pageId`, `target`, `expectedRevision`,
 * `actionId`), defined once so every tool lists them alike.
 */
import { z } from 'zod';

export const pageId = z
  .string()
  .min(1)
  .optional()
  .describe('Page to run in; default: the most recently focused JupyterLab page.');

export const target = z
  .string()
  .min(1)
  .optional()
  .describe('Model id of the widget (from `observe`); default: the most recently active Story.');

export const actionId = z
  .string()
  .min(1)
  .max(128)
  .optional()
  .describe('Idempotency key: a retried actionId returns the first result without applying again.');

export const expectedRevision = z
  .number()
  .int()
  .min(0)
  .optional()
  .describe('Fail with REVISION_CONFLICT unless the widget is at this revision.');
