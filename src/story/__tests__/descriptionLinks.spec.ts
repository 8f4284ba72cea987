/**
 * @jest-environment jsdom
 */
/** Links of a Story description: `#key` steps, MVS markdown commands act and never navigate. */
import { followDescriptionLinks, type DescriptionLinkActions } from '../descriptionLinks';

/** Mol*'s argument format (`!a=1&b=2`), as the live viewer's parser returns it. */
const parse = (href: string) =>
  href.startsWith('!')
    ? Object.fromEntries(
        href
          .slice(1)
          .split('&')
          .map(p => p.split('=', 2) as [string, string])
      )
    : undefined;

function setUp(html: string, live = true) {
  const element = document.createElement('div');
  element.innerHTML = html;
  document.body.replaceChildren(element);
  const done: string[] = [];
  const actions: DescriptionLinkActions = {
    goto: key => (done.push(`goto ${key}`), key !== 'missing'),
    step: d => done.push(`step ${d}`),
    commandArgs: href => (live ? parse(href) : undefined),
    runViewCommand: (event, args) => done.push(`${event} ${JSON.stringify(args)}`),
    touched: () => undefined
  };
  const stop = followDescriptionLinks(element, actions);
  const click = (selector: string) => {
    const event = new MouseEvent('click', { bubbles: true, cancelable: true });
    element.querySelector(selector)!.dispatchEvent(event);
    return event.defaultPrevented;
  };
  return { element, done, click, stop };
}

describe('followDescriptionLinks', () => {
  it('runs snapshot commands through the Story controls and view commands on the viewer, never navigating', () => {
    const { done, click } = setUp(
      '<a id="k" href="#intro">i</a><a id="a" href="!apply-snapshot=ligand">l</a><a id="n" href="!next-snapshot">n</a>' +
        '<a id="p" href="!next-snapshot=-1">p</a><a id="f" href="!focus-refs=lig&amp;extra=1">f</a><a id="x" href="!play-audio=https://x/a.mp3">x</a>'
    );
    expect(['#k', '#a', '#n', '#p', '#f', '#x'].map(click)).toEqual([true, true, true, true, true, true]);
    expect(done).toEqual([
      'goto intro',
      'goto ligand',
      'step 1',
      'step -1',
      'click {"focus-refs":"lig","extra":"1"}',
      'click {"play-audio":"https://x/a.mp3"}'
    ]);
  });

  it('highlights on entering a command link and clears on leaving it, not on moves inside it', () => {
    const { element, done } = setUp('<a href="!highlight-refs=lig"><b>lig</b>and</a><span>out</span>');
    const link = element.querySelector('a')!;
    link.dispatchEvent(new MouseEvent('mouseover', { bubbles: true, relatedTarget: element.querySelector('span') }));
    element.querySelector('b')!.dispatchEvent(new MouseEvent('mouseover', { bubbles: true, relatedTarget: link }));
    link.dispatchEvent(new MouseEvent('mouseout', { bubbles: true, relatedTarget: element.querySelector('span') }));
    expect(done).toEqual(['mouse-enter {"highlight-refs":"lig"}', 'mouse-leave {"highlight-refs":"lig"}']);
  });

  it('leaves other links alone, an unknown #key navigates as a link, and with no live viewer a command does nothing but never navigates', () => {
    const { done, click, stop } = setUp(
      '<a id="w" href="https://example.org">w</a><a id="m" href="#missing">m</a><a id="c" href="!focus-refs=x">c</a>',
      false
    );
    expect(click('#w')).toBe(false);
    expect(click('#m')).toBe(false);
    expect(click('#c')).toBe(true);
    expect(done).toEqual(['goto missing']);
    stop();
    expect(click('#c')).toBe(false);
  });
});
