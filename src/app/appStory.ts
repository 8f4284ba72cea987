/**
 * The Story file a tool result carries for the App (`_meta["molspace/story"]`,
 * src/contract/app.ts), decoded and checked, ready for `parseStory`.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { APP_STORY_META, AppStory } from '../contract/app';
import { appMetaOf, metaWhere } from './appMeta';
import type { StorySourceInput } from '../molstar/storySource';
import { appFileBytes } from './appStructure';

/** A Story ready for `parseStory`. */
export interface AppStorySource {
  title: string;
  name: string;
  input: StorySourceInput;
}

/**
 * The Story of `result`, or null when it carries none.
 *
 * @throws MolspaceError `INVALID_INPUT` at `_meta/molspace~1story/...` when it has the wrong shape.
 */
export function appStoryOf(result: CallToolResult): AppStorySource | null {
  const s = appMetaOf(result, APP_STORY_META, AppStory, 'Story', 'open');
  if (!s) {
    return null;
  }
  const where = metaWhere(APP_STORY_META);
  const bytes = appFileBytes(s.file, `${where}/file`);
  const input: StorySourceInput = s.format === 'mvsx' ? { mvsx: bytes } : { mvsj: new TextDecoder().decode(bytes) };
  return { title: s.title, name: s.file.name, input };
}
