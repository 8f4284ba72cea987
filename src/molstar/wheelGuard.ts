/**
 * The mouse wheel over a 3D view that is not focused scrolls the notebook
 * (docs/architecture.md, "Page"): Mol* zooms on every wheel event over its
 * canvas, so a person scrolling a notebook past a viewer was caught by it.
 * Until the view is focused (a click or Tab), wheel events stop at the view's
 * container in the capture phase, before they reach Mol*'s canvas, and the
 * browser scrolls the page as usual; a short hint says how to zoom.
 */

/** How long the hint stays, ms. */
const HINT_MS = 1500;

/**
 * Guard `container` (the element holding a Mol* canvas).
 *
 * @param hint - an element inside `container` shown while the wheel is held
 *   back (class `molspace-wheel-hint-shown`); null for none.
 * @returns a function that removes the guard.
 */
export function guardWheel(container: HTMLElement, hint: HTMLElement | null): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onWheel = (e: WheelEvent) => {
    if (container.contains(document.activeElement)) {
      return;
    }
    e.stopPropagation();
    if (hint) {
      hint.classList.add('molspace-wheel-hint-shown');
      clearTimeout(timer);
      timer = setTimeout(() => hint.classList.remove('molspace-wheel-hint-shown'), HINT_MS);
    }
  };
  container.addEventListener('wheel', onWheel, { capture: true });
  return () => {
    clearTimeout(timer);
    container.removeEventListener('wheel', onWheel, { capture: true });
  };
}
