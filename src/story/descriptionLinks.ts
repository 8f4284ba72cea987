/**
 * Links in a Story step's description (docs/architecture.md, "Story lifecycle"):
 * `[text](#key)` goes to the step with that key (MolViewStories' convention);
 * `[text](!name=args)` is an MVS markdown command (Mol*'s markdown
 * extensions): `apply-snapshot` and `next-snapshot` move the Story through
 * its controls (the Dispatcher, like its buttons), `focus-refs`,
 * `highlight-refs`, `center-camera` and `query` act on the view, and no
 * command link ever navigates (before, JupyterLab opened it as a file in a
 * second tab).
 */

/** What the links do, given by the Story view. */
export interface DescriptionLinkActions {
  /** Go to the step with `key`; false when the Story has none. */
  goto(key: string): boolean;
  /** One step back (-1) or on (1). */
  step(direction: -1 | 1): void;
  /** The arguments of a command link, parsed by the live viewer; undefined when none is live or it is not one. */
  commandArgs(href: string): Record<string, string> | undefined;
  /** Run a view command on the live viewer. */
  runViewCommand(event: 'click' | 'mouse-enter' | 'mouse-leave', args: Record<string, string>): void;
  /** A person used the view. */
  touched(): void;
}

/** True for an MVS markdown command link (`!name=args`). */
export function isCommandLink(href: string): boolean {
  return href.startsWith('!');
}

/**
 * Follow the links of `element` (the description).
 *
 * @returns a function that stops following.
 */
export function followDescriptionLinks(element: HTMLElement, actions: DescriptionLinkActions): () => void {
  const linkOf = (e: Event): { link: HTMLAnchorElement; href: string } | null => {
    const link = e.target instanceof Element ? e.target.closest('a') : null;
    return link ? { link, href: link.getAttribute('href') ?? '' } : null;
  };
  const onClick = (e: MouseEvent) => {
    const found = linkOf(e);
    if (!found) {
      return;
    }
    const { href } = found;
    if (href.startsWith('#')) {
      if (actions.goto(decodeURIComponent(href.slice(1)))) {
        e.preventDefault();
        e.stopPropagation();
        actions.touched();
      }
      return;
    }
    if (!isCommandLink(href)) {
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    actions.touched();
    const args = actions.commandArgs(href);
    if (!args) {
      return;
    }
    if (args['apply-snapshot']) {
      actions.goto(args['apply-snapshot']);
    } else if ('next-snapshot' in args) {
      // As Mol*'s own extension reads it: a negative number steps back, anything else on.
      actions.step((Number(args['next-snapshot']) || 1) < 0 ? -1 : 1);
    } else {
      actions.runViewCommand('click', args);
    }
  };
  const hover = (event: 'mouse-enter' | 'mouse-leave') => (e: MouseEvent) => {
    const found = linkOf(e);
    if (!found || !isCommandLink(found.href) || (e.relatedTarget instanceof Node && found.link.contains(e.relatedTarget))) {
      return; // not a command link, or moving inside it
    }
    const args = actions.commandArgs(found.href);
    if (args) {
      actions.runViewCommand(event, args);
    }
  };
  const onOver = hover('mouse-enter');
  const onOut = hover('mouse-leave');
  element.addEventListener('click', onClick);
  element.addEventListener('mouseover', onOver);
  element.addEventListener('mouseout', onOut);
  return () => {
    element.removeEventListener('click', onClick);
    element.removeEventListener('mouseover', onOver);
    element.removeEventListener('mouseout', onOut);
  };
}
