/**
 * The Story file a tool result carries for the App (`_meta["molspace/story"]`,
 * src/contract/app.ts), decoded and checked, ready for `parseStory`.
 */
import type { CallToolResult } from '@modelcontextprotocol/client';

import { APP_STORY_META, AppStory } from '../contract/app';
import { MolspaceError } from '../contract/errors';
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
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  if (!(APP_STORY_META in meta)) {
    return null;
  }
  const where = `_meta/${APP_STORY_META.replace('/', '~1')}`;
  const parsed = AppStory.safeParse(meta[APP_STORY_META]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new MolspaceError(
      'INVALID_INPUT',
      `The tool result's Story for the App has the wrong shape: ${issue.message}.`,
      issue.path.length ? `${where}/${issue.path.join('/')}` : where,
      'Show it with a molspace tool (open): its results carry the Story in this shape.',
      { path: issue.path.map(String) }
    );
  }
  const s = parsed.data;
  const bytes = appFileBytes(s.file, `${where}/file`);
  const input: StorySourceInput = s.format === 'mvsx' ? { mvsx: bytes } : { mvsj: new TextDecoder().decode(bytes) };
  return { title: s.title, name: s.file.name, input };
}
