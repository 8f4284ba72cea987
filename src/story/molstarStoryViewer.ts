/**
 * One live Mol* viewer playing a Story (no Mol* UI, no React).
 *
 * A bare `PluginContext` (Mol*'s `DefaultPluginSpec` plus the MolViewSpec
 * behavior) is mounted into a host element. The Story's snapshots are put into
 * Mol*'s snapshot manager with `loadMVS`; a step is shown with
 * `PluginCommands.State.Snapshots.Apply` (`setCurrent` only moves the
 * pointer; docs/architecture.md). Mol* records transform failures on state cells and in its log
 * instead of throwing, so after every apply the state tree is checked and a
 * failure becomes a located {@link MolspaceError}.
 *
 * Loaded lazily (`import()`) by the Story view: JupyterLab start pulls no Mol*.
 */
import { loadMVSX } from 'molstar/lib/extensions/mvs/components/formats';
import { loadMVS } from 'molstar/lib/extensions/mvs/load';
import type { MVSData_States } from 'molstar/lib/extensions/mvs/mvs-data';
import { PluginCommands } from 'molstar/lib/mol-plugin/commands';
import { PluginContext } from 'molstar/lib/mol-plugin/context';
import { Task } from 'molstar/lib/mol-task';
import { Color } from 'molstar/lib/mol-util/color';

import { MolspaceError } from '../contract/errors';
import { DARK_BACKGROUND, LIGHT_BACKGROUND, isSoftwareRenderer } from '../molstar/molstarPlugin';
import { withoutOcclusion } from '../molstar/softwareCanvas';
import { MolstarViewer, type MolstarViewerOptions } from '../molstar/molstarViewer';
import type { ParsedStory } from '../molstar/storySource';
import { refusedMessage } from '../resources/resourceFetch';
import { RESOURCE_HOSTS_SETTING } from '../resources/resourcePolicy';
import { DRAW_WAIT_MS, waitForFrame, type DrawOutcome } from '../molstar/frameWait';

/** Mol*'s text for cells whose parent failed (mol-state/state.js). */
const PARENT_NULL = 'Parent is null';

interface ResourceRef {
  /** Node path in the snapshot tree, e.g. `root/children/0`. */
  path: string;
  /** The `url`/`uri` param as written in the Story. */
  url: string;
}

/** How a Story view restarts a disposed viewer. */
/** MVS markdown commands a description link may run on the view (Mol*'s built-in extensions), and their options. */
const VIEW_COMMANDS = ['center-camera', 'focus-refs', 'highlight-refs', 'query'];
const VIEW_COMMAND_OPTIONS = ['lang', 'action', 'focus-radius'];

const LIVE_FIX = 'Scroll the widget into view (or click it) to restart the viewer.';

/** Mol* plugin wrapper: one per live Story view. */
export class MolstarStoryViewer extends MolstarViewer {
  private story: ParsedStory | null = null;
  private current = -1;

  private constructor(plugin: PluginContext, host: HTMLElement, opts: MolstarViewerOptions) {
    super(plugin, host, opts);
  }

  /**
   * Create a plugin and mount its canvas in `host` (which should be positioned,
   * e.g. `position: relative`, with a height; Mol*'s container fills it).
   * Its downloads follow redirects only to URLs `policy` allows (`resourceFetch.ts`).
   *
   * @throws MolspaceError `INTERNAL` when WebGL is unavailable (e.g. too many live contexts).
   */
  static async create(host: HTMLElement, opts: MolstarViewerOptions): Promise<MolstarStoryViewer> {
    return new MolstarStoryViewer(await MolstarViewer.mount(host, opts.dark), host, opts);
  }

  /** Whether {@link load} succeeded (the snapshots are in Mol*'s snapshot manager). */
  get loaded(): boolean {
    return this.story !== null;
  }

  /** Index of the last applied snapshot, or -1. */
  get currentIndex(): number {
    return this.current;
  }

  /**
   * Put all snapshots of `story` into Mol*'s snapshot manager and show
   * snapshot `index` (default 0). MVSX archives go through Mol*'s `loadMVSX`
   * (its files become `arcp:` assets, so archive-relative URLs resolve).
   *
   * @returns `'drawn'` when Mol* drew a frame of the step (see {@link applySnapshot}).
   * @throws MolspaceError `VALIDATION_FAILED` when Mol* rejects the Story;
   *   `NOT_FOUND` / `UNSUPPORTED_FORMAT` when the first step's resources fail
   *   (the Story is then loaded; `loaded` is true and other steps may work).
   */
  async load(story: ParsedStory, index = 0): Promise<DrawOutcome> {
    this.assertLive(LIVE_FIX);
    const count = story.data.snapshots.length;
    const start = index >= 0 && index < count ? index : 0;
    const errors = this.collectLogErrors();
    this.refusals = [];
    try {
      let sourceUrl: string | undefined;
      if (story.format === 'mvsx' && story.mvsx) {
        const bytes = story.mvsx.slice();
        const parsed = await this.plugin.runTask(Task.create('Load MVSX archive', ctx => loadMVSX(this.plugin, ctx, bytes)));
        sourceUrl = parsed.sourceUrl;
      }
      const data = cloneData(story.data);
      await loadMVS(this.plugin, isSoftwareRenderer(this.plugin) ? withoutOcclusion(data) : data, {
        sourceUrl,
        defaultSnapshotIndex: start,
        doNotReportErrors: true
      });
    } catch (err) {
      const messages = errors.stop();
      const reason = messages.length ? messages.join(' ') : err instanceof Error ? err.message : String(err);
      throw new MolspaceError(
        'VALIDATION_FAILED',
        `Mol* could not load the Story: ${reason}`,
        '/snapshots',
        'Validate the Story (story_validate) and fix the reported issues.',
        { reason }
      );
    }
    errors.stop();
    this.story = story;
    this.current = start;
    this.plugin.errorContext.clear('mvs');
    return this.afterApply(start);
  }

  /**
   * Show snapshot `index` with `PluginCommands.State.Snapshots.Apply`;
   * resolves once the step is built and Mol* has drawn a frame of it.
   *
   * @returns how the wait for a frame ended (`frameWait.ts`): `'drawn'` when
   *   Mol* reported a frame drawn after the apply (its `canvas3d.didDraw`
   *   event); `'page-hidden'` or `'timed-out'` (after {@link DRAW_WAIT_MS})
   *   when none came: the step is applied but not on screen.
   * @throws MolspaceError `INVALID_INPUT` (no Story loaded / index out of range),
   *   `NOT_FOUND` (a resource could not be loaded), `UNSUPPORTED_FORMAT` (a
   *   resource loaded but could not be read).
   */
  async applySnapshot(index: number): Promise<DrawOutcome> {
    this.assertLive(LIVE_FIX);
    const story = this.story;
    if (!story) {
      throw new MolspaceError('INVALID_INPUT', 'No Story is loaded in this viewer.', 'viewer', 'Load the Story before showing a step.');
    }
    const entries = this.plugin.managers.snapshot.state.entries;
    const entry = entries.get(index);
    if (!entry || index < 0) {
      throw new MolspaceError(
        'INVALID_INPUT',
        `Step ${index} does not exist; the Story has ${entries.size} step(s).`,
        `/snapshots/${index}`,
        `Use an index from 0 to ${entries.size - 1}.`,
        { index, count: entries.size }
      );
    }
    this.plugin.errorContext.clear('mvs');
    this.refusals = [];
    await PluginCommands.State.Snapshots.Apply(this.plugin, { id: entry.snapshot.id });
    this.current = index;
    return this.afterApply(index);
  }

  /**
   * The arguments of an MVS markdown command link (`!focus-refs=ligand`,
   * `!apply-snapshot=intro`), parsed by Mol*'s markdown extension manager;
   * undefined when `href` is not one.
   */
  markdownArgs(href: string): Record<string, string> | undefined {
    return this.disposed ? undefined : this.plugin.managers.markdownExtensions.parseArgs(href);
  }

  /**
   * Run the view commands of a description link as Mol*'s Story UI does:
   * camera and highlights only (`center-camera`, `focus-refs`,
   * `highlight-refs`, `query`). Snapshot, audio and animation commands never
   * reach Mol* from here: the Story's own controls move it.
   *
   * @returns true when the link held a view command.
   */
  runViewCommand(event: 'click' | 'mouse-enter' | 'mouse-leave', args: Record<string, string>): boolean {
    if (this.disposed || !VIEW_COMMANDS.some(name => name in args)) {
      return false;
    }
    const allowed = Object.fromEntries(
      Object.entries(args).filter(([key]) => VIEW_COMMANDS.includes(key) || VIEW_COMMAND_OPTIONS.includes(key))
    );
    this.plugin.managers.markdownExtensions.tryExecute(event, allowed);
    return true;
  }

  /**
   * Follow the JupyterLab theme. A snapshot whose MVS `canvas` node sets
   * `background_color` keeps its own background.
   */
  setDark(dark: boolean): void {
    this.dark = dark;
    if (!this.disposed) {
      this.applyBackground(this.current);
    }
  }

  /**
   * Draw snapshot `index` again (after a restored context): apply it if
   * another is shown, else request a frame and wait for it.
   *
   * @returns `'drawn'` when Mol* drew a frame of it (see {@link applySnapshot}).
   */
  async redraw(index: number): Promise<DrawOutcome> {
    this.assertLive(LIVE_FIX);
    if (index !== this.current) {
      return this.applySnapshot(index);
    }
    return this.afterApply(index);
  }

  /** PNG data URL of the current canvas (used as the parked image). */
  async screenshot(): Promise<string> {
    this.assertLive(LIVE_FIX);
    const canvas3d = this.plugin.canvas3d;
    canvas3d?.commit(true);
    const canvas = this.host.querySelector('canvas');
    if (!canvas) {
      return '';
    }
    return canvas.toDataURL('image/png');
  }

  /** Apply the theme background, check the state tree, wait for a frame (see `waitForFrame`). */
  private async afterApply(index: number): Promise<DrawOutcome> {
    this.applyBackground(index);
    const failure = this.findFailure(index);
    this.plugin.errorContext.clear('mvs');
    const drawn = await waitForFrame(this.plugin.canvas3d, DRAW_WAIT_MS);
    if (failure) {
      throw failure;
    }
    return drawn;
  }

  private applyBackground(index: number): void {
    const canvas3d = this.plugin.canvas3d;
    if (!canvas3d || !this.story || index < 0 || snapshotHasBackground(this.story.data, index)) {
      return;
    }
    canvas3d.setProps({
      renderer: { backgroundColor: Color.fromHexStyle(this.dark ? DARK_BACKGROUND : LIGHT_BACKGROUND) }
    });
  }

  /** Subscribe to Mol*'s log; `stop()` returns the error messages seen. */
  private collectLogErrors(): { stop: () => string[] } {
    const messages: string[] = [];
    const sub = this.plugin.events.log.subscribe(e => {
      if (e.type === 'error') {
        messages.push(String(e.message));
      }
    });
    return {
      stop: () => {
        sub.unsubscribe();
        return messages;
      }
    };
  }

  /**
   * Root-cause failures in the state tree after an apply (cells in `error`
   * whose parent did not fail) plus MVS annotation errors; the first becomes
   * a located error naming the resource URL(s) of snapshot `index`.
   */
  private findFailure(index: number): MolspaceError | null {
    const story = this.story;
    if (!story) {
      return null;
    }
    const state = this.plugin.state.data;
    const failures: { text: string; url: string | null }[] = [];
    state.cells.forEach(cell => {
      if (cell.status !== 'error') {
        return;
      }
      const text = cell.errorText ?? 'unknown error';
      if (text === PARENT_NULL) {
        return;
      }
      const parent = state.cells.get(cell.transform.parent);
      if (parent && parent.status === 'error' && parent !== cell) {
        return;
      }
      failures.push({ text, url: paramUrl(cell.transform.params) });
    });
    for (const text of this.plugin.errorContext.get('mvs')) {
      failures.push({ text, url: null });
    }
    if (failures.length === 0) {
      return null;
    }
    const snapshot = story.data.snapshots[index];
    const key = story.snapshots[index]?.key ?? String(snapshot?.metadata?.key ?? '');
    const resources = snapshot ? collectResources(snapshot.root as unknown as Record<string, unknown>) : [];
    const first = failures[0];
    const reason = first.text.replace(/^Error:\s*/, '');
    const matched = matchResources(resources, first);
    const label = `Snapshot ${index} ("${key}")`;
    const refusal = this.refusals.find(r => failures.some(f => f.text.includes(refusedMessage(r))));
    if (refusal) {
      const at = resources.find(r => r.url === refusal.url);
      return new MolspaceError(
        'FORBIDDEN',
        `${label} may not fetch ${refusal.url}: it redirected to ${refusal.redirectedTo}, and ${refusal.reason}. The answer was discarded unread.`,
        at ? `/snapshots/${index}/${at.path}/params/url` : `/snapshots/${index}`,
        `Use the file's final URL if its host is allowed, put the file into an .mvsx archive with the Story, or add the host to ${RESOURCE_HOSTS_SETTING}.`,
        {
          snapshotIndex: index,
          key,
          url: refusal.url,
          redirectedTo: refusal.redirectedTo,
          reason: refusal.reason,
          setting: 'resourceHosts',
          hosts: [...this.policy.hosts]
        }
      );
    }
    const html = htmlDownloads(state);
    if (html.length > 0) {
      // A web page (login, error or landing page) where a structure file was expected.
      const at = resources.find(r => r.url === html[0]);
      return new MolspaceError(
        'UNSUPPORTED_FORMAT',
        `${label}: ${html[0]} answered an HTML page where a structure file was expected (got HTML).`,
        at ? `/snapshots/${index}/${at.path}/params/url` : `/snapshots/${index}`,
        'Point the URL at the file itself (not a web page about it); open it in a browser tab to see what the server sends.',
        { snapshotIndex: index, key, url: html[0], got: 'html', errors: failures.map(f => f.text) }
      );
    }
    if (matched.length > 0 || first.url) {
      // Mol*'s download error names the HTTP status ("Download failed with status code 404").
      const code = /status code (\d{3})/i.exec(reason)?.[1];
      const status = code === undefined ? null : Number(code);
      const urls = matched.length ? matched.map(r => r.url) : [first.url as string];
      const where = matched.length ? `/snapshots/${index}/${matched[0].path}/params/url` : `/snapshots/${index}`;
      return new MolspaceError(
        'NOT_FOUND',
        `${label} could not load ${urls.join(', ')}: ${reason}`,
        where,
        status === null
          ? 'Check the URL is reachable from the browser (and allows cross-origin requests), or package the file into an .mvsx archive.'
          : `The server answered HTTP ${status}: check the URL, or package the file into an .mvsx archive.`,
        { snapshotIndex: index, key, url: urls[0], urls, status, errors: failures.map(f => f.text) }
      );
    }
    return new MolspaceError(
      'UNSUPPORTED_FORMAT',
      `${label} could not be built: ${reason}`,
      `/snapshots/${index}`,
      resources.length
        ? `Check the resources of this step are in the declared format: ${resources.map(r => r.url).join(', ')}.`
        : 'Check the step with story_validate and the MVS format documentation.',
      { snapshotIndex: index, key, urls: resources.map(r => r.url), errors: failures.map(f => f.text) }
    );
  }
}

/** URLs whose download succeeded but brought an HTML page (text beginning with `<!doctype html` or `<html`). */
function htmlDownloads(state: PluginContext['state']['data']): string[] {
  const urls: string[] = [];
  state.cells.forEach(cell => {
    const data = (cell.obj as { data?: unknown } | undefined)?.data;
    if (typeof data === 'string' && /^\s*(<!doctype\s+html|<html[\s>])/i.test(data.slice(0, 512))) {
      const url = paramUrl(cell.transform.params);
      if (url) {
        urls.push(url);
      }
    }
  });
  return urls;
}

/** Deep copy so Mol*'s in-place URI resolution never touches the parsed Story. */
function cloneData(data: MVSData_States): MVSData_States {
  return JSON.parse(JSON.stringify(data)) as MVSData_States;
}

/** True when snapshot `index` has an MVS `canvas` node with `background_color`. */
function snapshotHasBackground(data: MVSData_States, index: number): boolean {
  const root = data.snapshots[index]?.root as unknown as { children?: { kind?: string; params?: Record<string, unknown> }[] };
  return (root?.children ?? []).some(c => c?.kind === 'canvas' && c.params?.background_color !== undefined);
}

/** The `url` of a state transform's params (a string or a Mol* `Asset.Url`). */
function paramUrl(params: unknown): string | null {
  if (!params || typeof params !== 'object') {
    return null;
  }
  const p = params as Record<string, unknown>;
  for (const name of ['url', 'uri']) {
    const v = p[name];
    if (typeof v === 'string') {
      return v;
    }
    if (v && typeof v === 'object' && typeof (v as { url?: unknown }).url === 'string') {
      return (v as { url: string }).url;
    }
  }
  return null;
}

/** Every `url`/`uri` param in a snapshot tree, with its node path. */
function collectResources(node: Record<string, unknown>, path = 'root', out: ResourceRef[] = []): ResourceRef[] {
  const params = node.params as Record<string, unknown> | undefined;
  if (params) {
    for (const name of ['url', 'uri']) {
      if (typeof params[name] === 'string') {
        out.push({ path, url: params[name] as string });
      }
    }
  }
  const children = node.children;
  if (Array.isArray(children)) {
    children.forEach((c, k) => collectResources(c as Record<string, unknown>, `${path}/children/${k}`, out));
  }
  return out;
}

/**
 * Resources of a snapshot matching a failure: by the failed transform's URL
 * (archive `arcp:` URLs match by their path), else by URL text in the error;
 * if a URL is known but nothing matches, none.
 */
function matchResources(resources: ResourceRef[], failure: { text: string; url: string | null }): ResourceRef[] {
  const { text, url } = failure;
  if (url) {
    const hit = resources.filter(r => r.url === url || url.endsWith('/' + r.url.replace(/^\.\//, '')));
    if (hit.length) {
      return hit;
    }
  }
  const inText = resources.filter(r => text.includes(r.url));
  if (inText.length) {
    return inText;
  }
  // Download failures that name no URL: list the step's resources.
  if (/download|fetch|network|404|403|cors|failed to load|http/i.test(text) && !url) {
    return resources;
  }
  return [];
}
