/**
 * `story_validate`'s resource check: every `url`/`uri` a Story's snapshots name, and whether this
 * page can fetch it (docs/architecture.md, "Story authoring"). Remote URLs go through the same
 * resource policy and guarded fetch as a Story's downloads (`../resources/resourceFetch.ts`): nothing is
 * sent to a host the policy refuses. Files inside an `.mvsx` and `data:` URLs need no fetch.
 */
import { LIMITS, type StoryIssueDoc, type StoryResource } from '../contract';
import { probeResource, type FetchLike } from '../resources/resourceFetch';
import { refusalOf, type ResourcePolicy } from '../resources/resourcePolicy';

/** Every `url`/`uri` param of the snapshots of multi-state MVS `mvs`, in document order. */
export function storyResources(mvs: Record<string, unknown>): Pick<StoryResource, 'url' | 'snapshotIndex' | 'path'>[] {
  const out: Pick<StoryResource, 'url' | 'snapshotIndex' | 'path'>[] = [];
  const walk = (node: unknown, path: string, index: number) => {
    if (typeof node !== 'object' || node === null) {
      return;
    }
    const n = node as { params?: Record<string, unknown>; children?: unknown[] };
    for (const name of ['url', 'uri']) {
      const v = n.params?.[name];
      if (typeof v === 'string') {
        out.push({ url: v.trim(), snapshotIndex: index, path: `${path}/params/${name}` });
      }
    }
    (Array.isArray(n.children) ? n.children : []).forEach((c, k) => walk(c, `${path}/children/${k}`, index));
  };
  const snapshots = Array.isArray(mvs.snapshots) ? mvs.snapshots : [mvs];
  snapshots.forEach((s, i) => walk((s as { root?: unknown })?.root, 'root', i));
  return out;
}

/**
 * Each resource with its status: `data:` reachable; archive-relative ones reachable in a valid
 * `.mvsx` (else `unreachable`: an `.mvsj` holds no files, or the archive lacks it, as the issues
 * say); remote ones `forbidden` by the policy, else fetched (`check`) at most
 * `LIMITS.storyResourcesListed` distinct URLs at once, each within `LIMITS.storyResourceCheckMs` and
 * `until`, else `not-checked`.
 *
 * @returns the resources (all of them) and one issue per unreachable remote resource.
 */
export async function checkStoryResources(
  mvs: Record<string, unknown>,
  options: {
    format: 'mvsj' | 'mvsx';
    valid: boolean;
    check: boolean;
    policy: ResourcePolicy;
    until: number;
    keys: (index: number) => string | null;
  },
  fetchImpl?: FetchLike
): Promise<{ resources: StoryResource[]; issues: StoryIssueDoc[] }> {
  const found = storyResources(mvs);
  const remote = [...new Set(found.filter(r => /^[a-z][a-z0-9+.-]*:/i.test(r.url) && !/^data:/i.test(r.url)).map(r => r.url))];
  const probed = new Map<string, Awaited<ReturnType<typeof probeResource>>>();
  const toFetch = options.check ? remote.slice(0, LIMITS.storyResourcesListed) : [];
  const ms = Math.min(LIMITS.storyResourceCheckMs, options.until - Date.now());
  await Promise.all(
    remote.map(async url => {
      if (toFetch.includes(url) && ms > 0) {
        probed.set(url, await probeResource(url, options.policy, ms, fetchImpl));
      } else {
        const reason = refusalOf(url, options.policy); // not fetched, but the policy still says whether it may be
        if (reason !== null) {
          probed.set(url, { status: 'forbidden', httpStatus: null, reason, redirectedTo: null });
        }
      }
    })
  );
  const issues: StoryIssueDoc[] = [];
  const resources = found.map((r): StoryResource => {
    if (/^data:/i.test(r.url)) {
      return { ...r, source: 'data', status: 'reachable', httpStatus: null, reason: null };
    }
    if (!/^[a-z][a-z0-9+.-]*:/i.test(r.url)) {
      if (options.format === 'mvsx' && options.valid) {
        return { ...r, source: 'archive', status: 'reachable', httpStatus: null, reason: null };
      }
      const reason =
        options.format === 'mvsj'
          ? 'an .mvsj file holds no files: it needs an .mvsx archive'
          : 'not checked: the Story has issues (see issues)';
      return {
        ...r,
        source: options.format === 'mvsx' ? 'archive' : 'relative',
        status: options.format === 'mvsj' ? 'unreachable' : 'not-checked',
        httpStatus: null,
        reason
      };
    }
    const p = probed.get(r.url);
    if (!p) {
      const reason = options.check
        ? `not checked: only the first ${LIMITS.storyResourcesListed} URLs are fetched, within the call's time`
        : 'not checked (checkResources: false)';
      return { ...r, source: 'remote', status: 'not-checked', httpStatus: null, reason };
    }
    if (p.status === 'unreachable') {
      issues.push({
        snapshotIndex: r.snapshotIndex,
        key: options.keys(r.snapshotIndex),
        path: r.path,
        message: `Could not fetch ${r.url.length > 200 ? r.url.slice(0, 200) + '…' : r.url} from this page: ${p.reason}.`,
        fix: 'Check the URL opens in this browser (https, cross-origin allowed), or pack the file into an .mvsx with story_create assets.'
      });
    }
    return { ...r, source: 'remote', status: p.status, httpStatus: p.httpStatus, reason: p.reason };
  });
  return { resources, issues };
}
