/** The lines an error panel lists for a Story's validation issues. */
import { issueLines, validationError, located } from '../storyIssues';

describe('issueLines', () => {
  it('lists each issue of a VALIDATION_FAILED error with its snapshot, key and path', () => {
    const err = validationError([
      located(0, 'intro', 'root/children/0/params/url', 'url must be a string'),
      located(null, null, 'metadata/title', 'title is missing')
    ]);
    expect(issueLines(err.details)).toEqual([
      'snapshot 0 ("intro") root/children/0/params/url: url must be a string',
      'metadata/title: title is missing'
    ]);
  });

  it('reads issues of the wrong shape without throwing, and none from details without issues', () => {
    expect(issueLines({ issues: [null, 3, { snapshotIndex: 'x', key: 5, path: 7, message: 9 }] })).toEqual(['9']);
    expect(issueLines({})).toEqual([]);
    expect(issueLines({ issues: 'not a list' })).toEqual([]);
  });
});
