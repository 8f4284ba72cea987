/**
 * A bounded PNG of what one widget view shows, for the static fallback of
 * saved notebooks (docs/architecture.md, "Static fallback in saved notebooks").
 *
 * The source is the view's drawn canvas (Mol*'s WebGL canvas keeps its
 * drawing buffer, Mol*'s default; a Vega-Lite chart's canvas); a parked view
 * gives none. It is copied once into a 2D canvas at most
 * `LIMITS.staticFallbackWidth` wide, and scaled down until the PNG fits
 * `LIMITS.staticFallbackPngBytes`. Nothing here renders again or touches
 * the widget's state.
 */
import { LIMITS } from '../contract';

/** A PNG, base64 without the data-URL prefix. */
export interface FallbackPngImage {
  png: string;
  width: number;
  height: number;
}

/** Narrowest image worth keeping, pixels; below it the fallback is text only. */
const MIN_WIDTH = 120;

/** The views of model `modelId` in this document (inline outputs; docked views are not in notebooks). */
export function viewsOf(modelId: string, root: ParentNode | null = typeof document === 'undefined' ? null : document): HTMLElement[] {
  if (!root) {
    return [];
  }
  return [...root.querySelectorAll<HTMLElement>(`[data-molspace-model="${CSS.escape(modelId)}"]`)];
}

/**
 * The PNG of the first view of `modelId` that shows an image, or null (no
 * view shows one, e.g. a markdown panel or a view scrolled away before it started).
 */
export function capturePng(
  modelId: string,
  bounds: { width: number; bytes: number } = { width: LIMITS.staticFallbackWidth, bytes: LIMITS.staticFallbackPngBytes }
): FallbackPngImage | null {
  for (const view of viewsOf(modelId)) {
    const source = imageSource(view);
    if (source) {
      return encodeBounded(source.image, source.width, source.height, bounds);
    }
  }
  return null;
}

function imageSource(view: HTMLElement): { image: CanvasImageSource; width: number; height: number } | null {
  const canvas = [...view.querySelectorAll('canvas')].find(c => c.width > 0 && c.height > 0 && c.isConnected);
  if (canvas) {
    return { image: canvas, width: canvas.width, height: canvas.height };
  }
  // A parked view's image shows the view as it was when parked, maybe not what the state says now:
  // no picture (the summary is still sent), until the view is shown and draws again.
  return null;
}

/**
 * The PNG of a Viewer through its own screenshot (Mol* renders the current
 * view first, so a camera move that has not been painted yet is in it), or
 * null when no view holds a live 3D viewer.
 */
export async function captureViewerPng(
  target: { screenshot(size: { width?: number }): Promise<{ data: string; width: number; height: number }> },
  bounds: { width: number; bytes: number } = { width: LIMITS.staticFallbackWidth, bytes: LIMITS.staticFallbackPngBytes }
): Promise<FallbackPngImage | null> {
  let width = bounds.width;
  while (width >= MIN_WIDTH) {
    let shot;
    try {
      shot = await target.screenshot({ width });
    } catch {
      return null; // parked or not started: the DOM capture (parked image) is the fallback
    }
    if (Math.floor((shot.data.length * 3) / 4) <= bounds.bytes) {
      return { png: shot.data, width: shot.width, height: shot.height };
    }
    width = Math.floor(width * 0.7);
  }
  return null;
}

/**
 * The PNG of an SVG image (a depiction, base64), drawn on white at its own
 * size or at most `bounds.width` wide, or null when the browser cannot draw it.
 */
export async function svgPng(
  svgBase64: string,
  bounds: { width: number; bytes: number } = { width: LIMITS.staticFallbackWidth, bytes: LIMITS.staticFallbackPngBytes }
): Promise<FallbackPngImage | null> {
  const image = new Image();
  image.src = `data:image/svg+xml;base64,${svgBase64}`;
  try {
    await image.decode();
  } catch {
    return null;
  }
  if (!image.naturalWidth || !image.naturalHeight) {
    return null;
  }
  return encodeBounded(image, image.naturalWidth, image.naturalHeight, bounds, '#ffffff');
}

function encodeBounded(
  image: CanvasImageSource,
  width: number,
  height: number,
  bounds: { width: number; bytes: number },
  background: string | null = null
): FallbackPngImage | null {
  let w = Math.min(bounds.width, width);
  while (w >= MIN_WIDTH) {
    const h = Math.max(1, Math.round((w * height) / width));
    const out = document.createElement('canvas');
    out.width = w;
    out.height = h;
    const ctx = out.getContext('2d');
    if (!ctx) {
      return null;
    }
    if (background) {
      ctx.fillStyle = background;
      ctx.fillRect(0, 0, w, h);
    }
    ctx.drawImage(image, 0, 0, w, h);
    let url: string;
    try {
      url = out.toDataURL('image/png');
    } catch {
      return null; // a tainted canvas (cross-origin image): no fallback image
    }
    const png = url.slice(url.indexOf(',') + 1);
    if (Math.floor((png.length * 3) / 4) <= bounds.bytes) {
      return { png, width: w, height: h };
    }
    w = Math.floor(w * 0.7);
  }
  return null;
}
