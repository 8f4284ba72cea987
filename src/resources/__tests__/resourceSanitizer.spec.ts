/**
 * @jest-environment jsdom
 *
 * Images in rendered markdown follow the Story resource policy, after
 * JupyterLab's own sanitizer (src/resources/resourceSanitizer.ts).
 */
import { Sanitizer } from '@jupyterlab/apputils/lib/sanitizer';
import { ResourceCheckingSanitizer, withoutRefusedImages } from '../resourceSanitizer';
import { DEFAULT_RESOURCE_HOSTS, ResourcePolicy } from '../resourcePolicy';

const policy: ResourcePolicy = { hosts: DEFAULT_RESOURCE_HOSTS, pageOrigin: 'http://localhost:8888' };

describe('withoutRefusedImages', () => {
  it('keeps data: images and images from allowed hosts', () => {
    const html = '<p><img src="data:image/png;base64,iVBORw0KGgo="><img src="https://www.ebi.ac.uk/x.png"></p>';
    const out = withoutRefusedImages(html, policy);
    expect(out.refused).toEqual([]);
    expect(out.html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(out.html).toContain('src="https://www.ebi.ac.uk/x.png"');
  });

  it.each([
    ['this server', '<img src="http://localhost:8888/api/contents/secret.png">'],
    ['an unlisted host', '<img src="https://tracker.example.com/pixel.gif">'],
    ['a relative path', '<img src="files/x.png">'],
    ['a srcset entry', '<img srcset="https://www.ebi.ac.uk/a.png 1x, https://tracker.example.com/b.png 2x">'],
    ['a video poster', '<video poster="https://tracker.example.com/p.png"></video>']
  ])('replaces an image from %s with a note', (_what, html) => {
    const out = withoutRefusedImages(html, policy);
    expect(out.refused).toHaveLength(1);
    expect(out.html).toContain('molspace-refused-image');
    expect(out.html).not.toMatch(/<(img|video)\b/);
  });

  it('drops style attributes that fetch through url()', () => {
    const out = withoutRefusedImages('<p style="background: url(https://tracker.example.com/a.png)">x</p>', policy);
    expect(out.html).toBe('<p>x</p>');
  });
});

describe("ResourceCheckingSanitizer after JupyterLab's Sanitizer", () => {
  const sanitizer = new ResourceCheckingSanitizer(new Sanitizer(), policy);

  it('removes script and handlers (JupyterLab) and refused images (molspace) together', () => {
    const html = sanitizer.sanitize(
      '<img src="https://tracker.example.com/x.gif" onerror="window.pwned=1"><script>window.pwned=2</script><b>ok</b>'
    );
    expect(html).not.toContain('script');
    expect(html).not.toContain('onerror');
    expect(html).not.toContain('<img');
    expect(html).toContain('<b>ok</b>');
    expect(html).toContain('tracker.example.com');
  });

  it("forwards the inner sanitizer's options", () => {
    const inner = new Sanitizer();
    inner.setAutolink(false);
    expect(new ResourceCheckingSanitizer(inner, policy).getAutolink()).toBe(false);
  });
});
