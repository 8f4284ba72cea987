/**
 * @jest-environment jsdom
 *
 * Images in Story descriptions that are not URLs: the Story's own .mvsx files
 * and MVS colour commands, drawn without any fetch; everything else a located
 * note (src/story/descriptionImages.ts, src/resources/resourceSanitizer.ts).
 */
import { Sanitizer } from '@jupyterlab/apputils/lib/sanitizer';
import { ResourceCheckingSanitizer, withoutRefusedImages } from '../../resources/resourceSanitizer';
import { DEFAULT_RESOURCE_HOSTS, type ResourcePolicy } from '../../resources/resourcePolicy';
import { descriptionImages } from '../descriptionImages';

const policy: ResourcePolicy = { hosts: DEFAULT_RESOURCE_HOSTS, pageOrigin: 'http://localhost:8888' };
/** A 1×1 PNG. */
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), c =>
  c.charCodeAt(0)
);
const archive = new Map([
  ['figs/site.png', PNG],
  ['figs/logo.svg', Uint8Array.from('<svg xmlns="http://www.w3.org/2000/svg"/>', c => c.charCodeAt(0))]
]);

function body(html: string): HTMLElement {
  const el = document.createElement('div');
  el.innerHTML = html;
  return el;
}

describe('archive images', () => {
  it.each(['figs/site.png', './figs/site.png', 'figs/../figs/site.png', '/figs/site.png'])(
    'shows %s from the archive as a data: URI',
    src => {
      const out = withoutRefusedImages(`<p><img src="${src}" alt="binding site"></p>`, policy, descriptionImages(archive));
      expect(out.refused).toEqual([]);
      const img = body(out.html).querySelector('img.molspace-archive-image')!;
      expect(img.getAttribute('src')).toBe(`data:image/png;base64,${btoa(String.fromCharCode(...PNG))}`);
      expect(img.getAttribute('alt')).toBe('binding site');
    }
  );

  it('gives an SVG its image type (an <img> runs no script in it)', () => {
    const out = withoutRefusedImages('<img src="figs/logo.svg">', policy, descriptionImages(archive));
    expect(body(out.html).querySelector('img')!.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  it.each([
    ['a path the archive lacks', 'figs/missing.png', /archive has no image "figs\/missing\.png"/],
    ['a path that climbs out', '../../etc/passwd.png', /archive has no image "etc\/passwd\.png"/],
    ['an archive file that is no image', 'figs/site.png.txt', /has no image/]
  ])('notes %s, and fetches nothing', (_what, src, reason) => {
    const out = withoutRefusedImages(`<img src="${src}">`, policy, descriptionImages(archive));
    expect(out.refused).toEqual([src]);
    const el = body(out.html);
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('.molspace-refused-image')!.textContent).toMatch(reason);
  });

  it('tells an MVSJ Story (no archive) why a path does not load', () => {
    const out = withoutRefusedImages('<img src="figs/site.png">', policy, descriptionImages(undefined));
    expect(body(out.html).querySelector('.molspace-refused-image')!.textContent).toMatch(/only a Story loaded from an \.mvsx archive/);
  });

  it('leaves URLs with a scheme or a host to the resource policy', () => {
    const html =
      '<img src="//tracker.example.com/p.png"><img src="https://tracker.example.com/q.png"><img src="https://www.ebi.ac.uk/x.png">';
    const out = withoutRefusedImages(html, policy, descriptionImages(archive));
    expect(out.refused).toEqual(['//tracker.example.com/p.png', 'https://tracker.example.com/q.png']);
    expect(out.html).toContain('src="https://www.ebi.ac.uk/x.png"');
    // The notes give the policy's reasons, not the archive's.
    const notes = Array.from(body(out.html).querySelectorAll('.molspace-refused-image'), n => n.textContent);
    expect(notes).toHaveLength(2);
    expect(notes.join('\n')).not.toMatch(/has no image|is not a path inside/);
  });
});

describe('MVS colour commands', () => {
  it.each([
    ['!color-swatch=red', 'red'],
    ['!color-swatch=%23ff8800', 'rgb(255, 136, 0)']
  ])('%s is a colour swatch', (src, color) => {
    const out = withoutRefusedImages(`<p>ligand <img src="${src}"></p>`, policy, descriptionImages(archive));
    expect(out.refused).toEqual([]);
    const swatch = body(out.html).querySelector<HTMLElement>('span.molspace-color-swatch')!;
    expect(swatch.style.backgroundColor).toBe(color);
  });

  it('a named Mol* colour list is a colour bar with its gradient', () => {
    const out = withoutRefusedImages(
      '<img src="!color-palette-name=viridis&color-palette-width=200px">',
      policy,
      descriptionImages(undefined)
    );
    const bar = body(out.html).querySelector<HTMLElement>('span.molspace-color-palette')!;
    expect(bar.getAttribute('style')).toMatch(
      /^background-image: linear-gradient\(to right, rgb\(69, 8, 91\), .*rgb\(253, 231, 36\)\); min-width: 200px; height: 0\.5em$/
    );
  });

  it('listed colours make a banded bar when discrete', () => {
    const out = withoutRefusedImages(
      '<img src="!color-palette-colors=red,blue&color-palette-discrete">',
      policy,
      descriptionImages(undefined)
    );
    const bar = body(out.html).querySelector<HTMLElement>('span.molspace-color-palette')!;
    expect(bar.getAttribute('style')).toMatch(
      /^background-image: linear-gradient\(to right, rgb\(255, 0, 0\) 50%, rgb\(0, 0, 255\) 50%\); min-width: 150px/
    );
  });

  it('a bar length that is not a CSS length falls back to the default, passing nothing on', () => {
    const src = '!color-palette-name=viridis&color-palette-width=1px;background:url(https://tracker.example.com/p.png)';
    const out = withoutRefusedImages(`<img src="${src}">`, policy, descriptionImages(undefined));
    const style = body(out.html).querySelector<HTMLElement>('span.molspace-color-palette')!.getAttribute('style');
    expect(style).toMatch(/min-width: 150px;/);
    expect(style).not.toMatch(/url\(/);
  });

  it.each([
    ['a value that is not a colour', '!color-swatch=notacolour', /"notacolour" is not a CSS colour/],
    ['a colour that smuggles a url()', '!color-swatch=red;background-image:url(https://tracker.example.com/p.png)', /is not a CSS colour/],
    ['an unknown colour list', '!color-palette-name=nosuchlist', /"nosuchlist" is not one of Mol\*'s colour lists/],
    ['a command that draws nothing', '!focus-refs=ligand', /colour swatches \(!color-swatch=…\) and colour bars/],
    ['a bad %-escape', '!color-swatch=%E0%A4%A', /not a readable MVS markdown command/]
  ])('notes %s', (_what, src, reason) => {
    const out = withoutRefusedImages(`<img src="${src}">`, policy, descriptionImages(undefined));
    expect(out.refused).toEqual([src]);
    const el = body(out.html);
    expect(el.querySelector('.molspace-refused-image')!.textContent).toMatch(reason);
    expect(el.querySelector('[style]')).toBeNull();
  });

  it("survive JupyterLab's sanitizer, which runs first", () => {
    const sanitizer = new ResourceCheckingSanitizer(new Sanitizer(), policy, descriptionImages(archive));
    const html = sanitizer.sanitize('<img src="!color-swatch=red"><img src="figs/site.png" onerror="alert(1)">');
    const el = body(html);
    expect(el.querySelector<HTMLElement>('.molspace-color-swatch')!.style.backgroundColor).toBe('red');
    expect(el.querySelector('img.molspace-archive-image')!.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(html).not.toMatch(/onerror/);
  });
});
