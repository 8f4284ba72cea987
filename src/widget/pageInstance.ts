/**
 * One id per page load: what a widget's synced `_play_owner` holds for the page that advances
 * its playback (a Story's steps, a Viewer's trajectory frames), so one timer runs whatever the
 * number of pages showing it.
 */
export const PAGE_INSTANCE_ID: string =
  typeof crypto !== 'undefined' && typeof crypto.randomUUID === 'function'
    ? crypto.randomUUID()
    : `page-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
