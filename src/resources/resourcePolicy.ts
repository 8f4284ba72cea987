/**
 * Where a Story may fetch from (docs/security.md, "Story resources").
 *
 * A Story's `url`/`uri` params are checked when it is parsed, before Mol*
 * fetches anything. Besides the MVSX archive itself and `data:` URLs (handled
 * by `storySource.ts`), a Story may load only `https:` URLs whose host is on
 * the `resourceHosts` setting. Whatever that list says, these never load:
 * other schemes (`http:` included), URLs with credentials, IP literals
 * (loopback, private, link-local and CGNAT ranges among them), single-label
 * names such as `localhost`, and this JupyterLab's own origin, whose requests
 * carry the user's cookies.
 */

/**
 * Default `resourceHosts`: public structure archives and the MolViewSpec
 * examples. A leading dot allows the domain and every subdomain.
 * RCSB PDB (files., models.), PDBe and AlphaFold DB (www.ebi.ac.uk,
 * alphafold.ebi.ac.uk), wwPDB (files.wwpdb.org), PDBj, molstar.org.
 */
export const DEFAULT_RESOURCE_HOSTS: readonly string[] = ['.rcsb.org', '.ebi.ac.uk', '.wwpdb.org', '.pdbj.org', '.molstar.org'];

/** The setting a refusal names, as JupyterLab's settings editor shows it. */
export const RESOURCE_HOSTS_SETTING = 'Settings → molspace → Story resource hosts (resourceHosts)';

/** What a page allows a Story to fetch. */
export interface ResourcePolicy {
  /** Allowed host names; a leading dot allows subdomains too (see {@link DEFAULT_RESOURCE_HOSTS}). */
  hosts: readonly string[];
  /** This page's origin (`location.origin`), never fetched from; null outside a browser. */
  pageOrigin: string | null;
}

/** The policy of a page with default settings. */
export function defaultResourcePolicy(): ResourcePolicy {
  return {
    hosts: DEFAULT_RESOURCE_HOSTS,
    pageOrigin: typeof location === 'undefined' ? null : location.origin
  };
}

/** True when `host` (lower case, no port) is on `hosts`. */
export function hostAllowed(host: string, hosts: readonly string[]): boolean {
  return hosts.some(entry => {
    const e = entry.trim().toLowerCase();
    if (e.startsWith('.')) {
      return host === e.slice(1) || host.endsWith(e);
    }
    return host === e;
  });
}

function pageHost(origin: string): string | null {
  try {
    return new URL(origin).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
}

function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || /^0x[0-9a-f]+$|^\d+$/.test(host);
}

/**
 * Why `url` may not be fetched, or null when it may.
 *
 * @param url - an absolute `http(s):` URL from a Story's `url`/`uri` param.
 * @returns one sentence naming the rule it breaks (for a located FORBIDDEN).
 */
export function refusalOf(url: string, policy: ResourcePolicy): string | null {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url.trim())) {
    // `https:host/x` or `https:\\host`: a browser resolves it against the page (a path on this
    // server, with its cookies, when the schemes match), not as the URL it seems to be.
    return 'a URL must name its host after "//" (https://host/path); without it the browser resolves it against this page';
  }
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'it is not a valid URL';
  }
  if (u.username !== '' || u.password !== '') {
    return 'URLs with credentials never load';
  }
  if (u.protocol !== 'https:') {
    return `only https: URLs load (got ${u.protocol})`;
  }
  const host = u.hostname.toLowerCase().replace(/\.$/, '');
  if (policy.pageOrigin !== null && (u.origin === policy.pageOrigin || host === pageHost(policy.pageOrigin))) {
    // cookies are scoped by host, not port: any port of this server's host carries the login
    return 'this JupyterLab server never serves Story resources (its requests carry your login)';
  }
  if (isIpLiteral(host)) {
    return 'IP addresses never load (loopback, private and link-local ranges among them); use a host name';
  }
  if (!host.includes('.')) {
    return `single-label host names such as "${host}" never load`;
  }
  if (!hostAllowed(host, policy.hosts)) {
    return `the host "${host}" is not on the allowed resource hosts (${policy.hosts.join(', ') || 'none'})`;
  }
  return null;
}

/** One `url`/`uri` param a policy refused. */
export interface RefusedResource {
  snapshotIndex: number;
  key: string;
  /** Node path inside the snapshot, e.g. `root/children/0/params/url`. */
  path: string;
  url: string;
  reason: string;
}

/** How many refusals one error lists. */
const MAX_LISTED = 20;

function walk(node: unknown, path: string, visit: (url: string, path: string) => void): void {
  if (typeof node !== 'object' || node === null) {
    return;
  }
  const n = node as { params?: Record<string, unknown>; children?: unknown[] };
  for (const name of ['url', 'uri']) {
    const v = n.params?.[name];
    // every value with a scheme but data: (`https:host` without "//" too: see refusalOf); other
    // schemes than http(s) were already refused by storySource's validation
    if (typeof v === 'string' && /^[a-z][a-z0-9+.-]*:/i.test(v.trim()) && !/^data:/i.test(v.trim())) {
      visit(v.trim(), `${path}/params/${name}`);
    }
  }
  (Array.isArray(n.children) ? n.children : []).forEach((c, k) => walk(c, `${path}/children/${k}`, visit));
}

/**
 * Every absolute URL a Story's snapshots would fetch that `policy` refuses.
 *
 * @param snapshots - multi-state MVS snapshots (`{root, metadata: {key}}`),
 *   archive paths already resolved (they are not absolute URLs).
 */
export function refusedResources(
  snapshots: readonly { root?: unknown; metadata?: { key?: unknown } }[],
  policy: ResourcePolicy
): RefusedResource[] {
  const refused: RefusedResource[] = [];
  snapshots.forEach((s, i) => {
    walk(s.root, 'root', (url, path) => {
      const reason = refusalOf(url, policy);
      if (reason !== null) {
        refused.push({ snapshotIndex: i, key: String(s.metadata?.key ?? `snapshot-${i}`), path, url, reason });
      }
    });
  });
  return refused;
}

/**
 * The located FORBIDDEN error for refused resources: the first one names the
 * snapshot, the param path, the URL, the reason and the setting to change;
 * `details.refused` lists up to 20 of them (`details.count` says how many).
 */
export function forbiddenError(
  refused: RefusedResource[],
  policy: ResourcePolicy
): {
  code: 'FORBIDDEN';
  message: string;
  where: string;
  fix: string;
  details: Record<string, unknown>;
} {
  const first = refused[0];
  const shown = first.url.length > 200 ? first.url.slice(0, 200) + '…' : first.url;
  return {
    code: 'FORBIDDEN',
    message:
      `Snapshot ${first.snapshotIndex} ("${first.key}") may not fetch ${shown}: ${first.reason}.` +
      (refused.length > 1 ? ` ${refused.length - 1} more URL(s) refused (details.refused).` : ''),
    where: `/snapshots/${first.snapshotIndex}/${first.path}`,
    fix:
      `Put the file into an .mvsx archive with the Story, use a data: URL, or serve it from an https host ` +
      `on ${RESOURCE_HOSTS_SETTING}.`,
    details: {
      url: first.url,
      setting: 'resourceHosts',
      hosts: [...policy.hosts],
      count: refused.length,
      refused: refused.slice(0, MAX_LISTED)
    }
  };
}
