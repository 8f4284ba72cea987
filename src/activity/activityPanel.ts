/**
 * The activity panel: what agents, cells, buttons and playback did in this
 * page, as it happens, newest first (a JupyterLab side panel). Every string is
 * set as text (`textContent`), never as HTML: agent-supplied arguments and
 * messages cannot add markup. Clicking an entry scrolls to its widget and
 * highlights it.
 */
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';
import type { ActivityEntry, ActivityFilter, ActivityLog } from './activityLog';

/** Sources offered by the source filter. */
const SOURCES: ActivityFilter['source'][] = [null, 'agent', 'kernel', 'ui', 'play'];

/** How long a widget stays highlighted after its entry is clicked, ms. */
const HIGHLIGHT_MS = 1500;

export class ActivityPanel extends Widget {
  private readonly _list: HTMLOListElement;
  private readonly _source: HTMLSelectElement;
  private readonly _target: HTMLSelectElement;
  private _scheduled = false;

  constructor(private readonly _log: ActivityLog) {
    super();
    this.id = 'molspace-activity';
    this.addClass('molspace-activity');
    this.title.caption = 'molspace activity: calls from agents, cells and buttons';

    const bar = document.createElement('div');
    bar.className = 'molspace-activity-filters';
    this._source = select(
      'Source',
      SOURCES.map(s => [s ?? '', s ?? 'all sources'])
    );
    this._target = select('Widget', [['', 'all widgets']]);
    bar.append(this._source, this._target);

    this._list = document.createElement('ol');
    this._list.className = 'molspace-activity-list';
    this._list.setAttribute('aria-live', 'polite');
    this.node.append(bar, this._list);

    this._source.addEventListener('change', () => this.render());
    this._target.addEventListener('change', () => this.render());
    this._log.changed.connect(this._schedule, this);
    this.render();
  }

  /** The current filter, from the two selects. */
  get filter(): ActivityFilter {
    return {
      source: SOURCES.find(s => (s ?? '') === this._source.value) ?? null,
      target: this._target.value || null
    };
  }

  dispose(): void {
    this._log.changed.disconnect(this._schedule, this);
    super.dispose();
  }

  /** Shown again: draw what came in while hidden. */
  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this._schedule();
  }

  /**
   * Redraw once per animation frame, and only while shown: reads answered from
   * the mirror can come in at 100+ a second.
   */
  private _schedule(): void {
    if (this._scheduled || this.isDisposed) {
      return;
    }
    this._scheduled = true;
    requestAnimationFrame(() => {
      this._scheduled = false;
      if (this.isVisible && !this.isDisposed) {
        this.render();
      }
    });
  }

  /** Redraw the list (and the widget filter's options) from the log. */
  render(): void {
    const all = this._log.entries();
    const targets = [...new Set(all.map(e => e.target).filter((t): t is string => t !== null))];
    const chosen = this._target.value;
    this._target.replaceChildren(option('', 'all widgets'), ...targets.map(t => option(t, t)));
    this._target.value = targets.includes(chosen) ? chosen : '';
    this._list.replaceChildren(...this._log.entries(this.filter).map(e => this._item(e)));
  }

  private _item(e: ActivityEntry): HTMLLIElement {
    const li = document.createElement('li');
    li.className = `molspace-activity-entry ${e.ok ? 'molspace-mod-ok' : 'molspace-mod-error'}`;
    li.dataset.seq = String(e.seq);
    li.dataset.source = e.source;
    li.dataset.answeredBy = e.answeredBy;
    if (e.target) {
      li.dataset.target = e.target;
    }
    const head = document.createElement('div');
    head.className = 'molspace-activity-head';
    head.textContent = `${e.at.slice(11, 19)}  ${e.who}  ${e.tool}${e.target ? ` → ${e.target}` : ''}  ${e.outcome}  ${e.durationMs} ms`;
    const args = document.createElement('div');
    args.className = 'molspace-activity-args';
    args.textContent = e.args;
    const summary = document.createElement('div');
    summary.className = 'molspace-activity-summary';
    summary.textContent = e.summary;
    li.append(head, args, summary);
    const target = e.target;
    if (target) {
      li.tabIndex = 0;
      const reveal = () => revealWidget(target);
      li.addEventListener('click', reveal);
      li.addEventListener('keydown', ev => ev.key === 'Enter' && reveal());
    }
    return li;
  }
}

function select(label: string, options: [string, string][]): HTMLSelectElement {
  const el = document.createElement('select');
  el.setAttribute('aria-label', label);
  el.append(...options.map(([value, text]) => option(value, text)));
  return el;
}

function option(value: string, text: string): HTMLOptionElement {
  const el = document.createElement('option');
  el.value = value;
  el.textContent = text;
  return el;
}

/** Scroll to the widget with this model id and highlight it briefly. */
function revealWidget(modelId: string): void {
  const el = [...document.querySelectorAll<HTMLElement>('[data-molspace-model]')].find(n => n.dataset.molspaceModel === modelId);
  if (!el) {
    return;
  }
  el.scrollIntoView({ block: 'center' });
  el.classList.add('molspace-mod-highlight');
  setTimeout(() => el.classList.remove('molspace-mod-highlight'), HIGHLIGHT_MS);
}
