/** What a Viewer screenshot asks for and what it returns (`act`'s `screenshot`, docs/architecture.md, "Viewer"). */

/**
 * What a screenshot asks for: pixels (none: the view's own size, or at most
 * `defaultWidth` wide when given), format (default PNG) and JPEG/WebP quality.
 */
export interface ShotOptions {
  width?: number;
  height?: number;
  defaultWidth?: number;
  format?: 'png' | 'jpeg' | 'webp';
  quality?: number;
}

/** A screenshot: base64 data (no data-URL prefix), its MIME type and size. */
export interface Shot {
  data: string;
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
}
