/**
 * The error panel of a widget view: the widget's one error state shown where
 * a person looks (docs/architecture.md, "Page widget models"). It shows the
 * code and message, `Where:` and `Fix:` of a {@link LocatedError}, and
 * optionally a bounded list of its issues (e.g. a Story's validation issues).
 */
import type { LocatedError } from '../contract';

/** Issue lines listed at most; the rest is counted. */
export const MAX_ISSUE_LINES = 20;

/**
 * Show `err` in `panel` (hidden when null); `issues` are listed when there
 * are two or more (one issue is the message itself).
 *
 * DOM: `.molspace-story-error-message` (with `.molspace-story-error-code`),
 * `.molspace-story-error-where`, `.molspace-story-error-fix`,
 * `.molspace-story-error-issues`.
 */
export function showLocatedError(panel: HTMLElement, err: LocatedError | null, issues: readonly string[] = []): void {
  panel.replaceChildren();
  panel.hidden = err === null;
  if (!err) {
    return;
  }
  const message = el('div', 'molspace-story-error-message');
  const code = el('strong', 'molspace-story-error-code');
  code.textContent = err.code;
  message.append(code, document.createTextNode(` ${err.message}`));
  panel.append(message);
  if (err.where) {
    panel.append(el('div', 'molspace-story-error-where', `Where: ${err.where}`));
  }
  if (err.fix) {
    panel.append(el('div', 'molspace-story-error-fix', `Fix: ${err.fix}`));
  }
  if (issues.length > 1) {
    const list = el('ul', 'molspace-story-error-issues');
    for (const issue of issues.slice(0, MAX_ISSUE_LINES)) {
      list.append(el('li', '', issue));
    }
    if (issues.length > MAX_ISSUE_LINES) {
      list.append(el('li', '', `… and ${issues.length - MAX_ISSUE_LINES} more`));
    }
    panel.append(list);
  }
}

function el(tag: string, className: string, text?: string): HTMLElement {
  const e = document.createElement(tag);
  if (className) {
    e.className = className;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}
