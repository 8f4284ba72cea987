/**
 * Every page tool's handler. A new page tool adds its handler module here
 * (and its spec to `TOOLS` in `src/contract/tools.ts`).
 */
import { observe } from './observe';
import { storyControl } from './storyControl';
import { storyObserve } from './storyObserve';
import { viewerObserve } from './viewerObserve';
import { act } from './act';
import { open } from './open';
import type { PageTool } from './tool';

export const PAGE_TOOLS: readonly PageTool[] = [observe, storyObserve, storyControl, viewerObserve, act, open];
