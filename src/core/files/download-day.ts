// The day a download is counted in (DESIGN §8 "Downloads").
//
// The counting rule the download routes apply:
// - A download is counted when the endpoint hands out the file: the 302 to a signed URL for one file, or the
//   start of the ZIP response for the whole version. Handing out is what can be observed; whether the client
//   then fetched the bytes cannot.
// - It is counted at most once per (target, client key, UTC day): the target is the file for
//   `…/download/:fileId` and for the one-file redirect of `…/download`, and the version for the ZIP; the client
//   key is downloadClientKey(request.ip) (IPv4, or the IPv6 /64); the day is utcDay(clock.now()).
//   A unique index over those three columns makes the check race-free: insert, and count only when the insert
//   added a row.
// - Every counted download records the IP, the user agent and, when the request was authenticated, the user id.
// - Only downloads of APPROVED versions count (countsDownloads in versions.states.ts); a counted download
//   moves the version's and the resource's `downloads` in the same transaction as the insert.
// - The day is UTC for everyone, so "once per day" means the same thing whatever the client's time zone and
//   the boundary never moves with daylight saving time.

const MS_PER_DAY = 86_400_000;
/** The last day formatted: every download asks, and the answer changes once a day. */
let last = { day: Number.NaN, text: '' };

/** 'YYYY-MM-DD' of `date` in UTC. */
export function utcDay(date: Date): string {
  const day = Math.floor(date.getTime() / MS_PER_DAY);
  if (day !== last.day) last = { day, text: date.toISOString().slice(0, 10) };
  return last.text;
}
