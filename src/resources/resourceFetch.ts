/**
 * Story downloads with redirects re-checked (docs/security.md, "Story resources").
 *
 * `resourcePolicy.ts` checks a Story's URLs when it is parsed, but the
 * browser follows HTTP redirects on its own. This takes over Mol*'s
 * downloads of absolute `http(s):` URLs in one plugin (its `AssetManager`,
 * through which every MVS `download` goes): the page fetches without
 * credentials, and a response whose final URL (after redirects) the same
 * policy refuses is discarded unread and the download fails. The refusal is
 * kept, so the viewer can report a located FORBIDDEN naming the URL, where
 * it redirected and the setting. Archive (`arcp:`) and other assets Mol*
 * already holds go through Mol*'s own code unchanged.
 */
import { Asset, type AssetManager } from 'molstar/lib/mol-util/assets';
import { readFromFile, type DataType } from 'molstar/lib/mol-util/data-source';
import { Task } from 'molstar/lib/mol-task';

import { refusalOf, type ResourcePolicy } from './resourcePolicy';

/** A download refused after a redirect. */
export interface RedirectRefusal {
  /** The URL the Story names. */
  url: string;
  /** Where the server sent the browser (the response's final URL). */
  redirectedTo: string;
  /** Why the policy refuses the final URL (one clause, from {@link refusalOf}). */
  reason: string;
}

/** What {@link guardDownloads} needs of `fetch`. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** The message of a refused download, as Mol* records it on the failed state cell. */
export function refusedMessage(r: RedirectRefusal): string {
  return `Download refused: ${r.url} redirected to ${r.redirectedTo}, and ${r.reason}`;
}

/**
 * Route `manager`'s downloads of absolute http(s) URLs through `fetch` with
 * the final URL checked against `policy` (read at each download, so the
 * `resourceHosts` setting applies as it changes).
 *
 * @param onRefused - called with each refusal before the download fails.
 * @returns a function that puts Mol*'s own `resolve` back.
 */
export function guardDownloads(
  manager: AssetManager,
  policy: ResourcePolicy,
  onRefused: (refusal: RedirectRefusal) => void,
  fetchImpl: FetchLike = (u, i) => fetch(u, i)
): () => void {
  const original = manager.resolve;
  const guarded = (<T extends DataType>(asset: Asset, type: T, store = true): Task<Asset.Wrapper<T>> => {
    if (!Asset.isUrl(asset) || manager.has(asset) || !/^https?:\/\//i.test(asset.url)) {
      return original.call(manager, asset, type, store);
    }
    return Task.create(`Download ${asset.title || asset.url}`, async ctx => {
      const bytes = await download(asset, policy, onRefused, fetchImpl);
      const file = new File([bytes], 'raw-data');
      if (store) {
        manager.set(asset, file);
        const entry = manager.get(asset);
        if (entry) {
          entry.refCount = 1;
        }
      }
      return Asset.Wrapper(await readFromFile(file, type).runInContext(ctx), asset, manager);
    });
  }) as AssetManager['resolve'];
  manager.resolve = guarded;
  return () => {
    if (manager.resolve === guarded) {
      manager.resolve = original;
    }
  };
}

/**
 * The body of `asset`, fetched without credentials.
 *
 * @throws Error with Mol*'s own texts ("Download failed with status code N")
 *   for HTTP errors, the browser's for network failures, and
 *   {@link refusedMessage} when the final URL is refused.
 */
async function download(
  asset: Asset.Url,
  policy: ResourcePolicy,
  onRefused: (refusal: RedirectRefusal) => void,
  fetchImpl: FetchLike
): Promise<ArrayBuffer> {
  const response = await fetchImpl(asset.url, {
    method: asset.body ? 'POST' : 'GET',
    body: asset.body,
    headers: asset.headers,
    credentials: 'omit',
    redirect: 'follow'
  });
  const final = response.url || asset.url;
  if (final !== asset.url) {
    const reason = refusalOf(final, policy);
    if (reason !== null) {
      void response.body?.cancel();
      const refusal = { url: asset.url, redirectedTo: final, reason };
      onRefused(refusal);
      throw new Error(refusedMessage(refusal));
    }
  }
  if (response.status < 200 || response.status >= 400) {
    void response.body?.cancel();
    throw new Error(`Download failed with status code ${response.status}`);
  }
  return response.arrayBuffer();
}

/** Whether a Story resource can be fetched by this page, as {@link probeResource} found. */
export interface ResourceProbe {
  status: 'reachable' | 'unreachable' | 'forbidden';
  /** The HTTP status of the final response, or null (no response). */
  httpStatus: number | null;
  /** Why it is unreachable or forbidden (one clause), or null. */
  reason: string | null;
  /** The final URL when the server redirected, or null. */
  redirectedTo: string | null;
}

/**
 * Try `url` as a Story download would (`story_validate`): the policy first (nothing is sent to a
 * host it refuses), then a GET without credentials whose final URL is checked again; the body is
 * not read. Gives up after `timeoutMs`.
 */
export async function probeResource(
  url: string,
  policy: ResourcePolicy,
  timeoutMs: number,
  fetchImpl: FetchLike = (u, i) => fetch(u, i)
): Promise<ResourceProbe> {
  const refused = refusalOf(url, policy);
  if (refused !== null) {
    return { status: 'forbidden', httpStatus: null, reason: refused, redirectedTo: null };
  }
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), Math.max(1, timeoutMs));
  try {
    const response = await fetchImpl(url, { method: 'GET', credentials: 'omit', redirect: 'follow', signal: abort.signal });
    void response.body?.cancel().catch(() => undefined);
    const final = response.url || url;
    const redirectedTo = final !== url ? final : null;
    if (redirectedTo !== null) {
      const reason = refusalOf(final, policy);
      if (reason !== null) {
        return { status: 'forbidden', httpStatus: response.status, reason: `it redirects to ${final}, and ${reason}`, redirectedTo };
      }
    }
    if (response.status < 200 || response.status >= 400) {
      return { status: 'unreachable', httpStatus: response.status, reason: `the server answered HTTP ${response.status}`, redirectedTo };
    }
    return { status: 'reachable', httpStatus: response.status, reason: null, redirectedTo };
  } catch {
    const why = abort.signal.aborted
      ? `no answer within ${Math.round(timeoutMs / 100) / 10} s`
      : 'the request failed (no network, a name that does not resolve, or no cross-origin permission)';
    return { status: 'unreachable', httpStatus: null, reason: why, redirectedTo: null };
  } finally {
    clearTimeout(timer);
  }
}
