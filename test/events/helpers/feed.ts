// Reading GET /events in tests: one page, every page after a cursor, and the newest event id as a starting mark.
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import type { TestUser } from '../../helpers/factories.js';

export interface EventBody {
  id: string;
  type: string;
  createdAt: string;
  actor: { id: string; username: string | null } | null;
  subject: { kind: string; id: string };
  data: Record<string, unknown>;
}

export interface EventPage {
  events: EventBody[];
  nextCursor: string | null;
}

export type EventQuery = Record<string, string | number | string[] | undefined>;

export function eventsUrl(query: EventQuery = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) params.append(key, String(item));
  }
  const text = params.toString();
  return text === '' ? '/events' : `/events?${text}`;
}

export function requestEvents(app: App, reader: TestUser | null, query: EventQuery = {}) {
  return app.inject({ method: 'GET', url: eventsUrl(query), headers: reader?.headers ?? {} });
}

/** One page that must succeed. */
export async function readEvents(
  app: App,
  reader: TestUser | null,
  query: EventQuery = {},
): Promise<EventPage> {
  const response = await requestEvents(app, reader, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as EventPage;
}

/**
 * Every event after `after`, following nextCursor (limit 100) until a page comes back empty with the cursor
 * where it was. Fails if the cursor ever moves backwards.
 */
export async function readAllEvents(
  app: App,
  reader: TestUser | null,
  query: EventQuery & { after?: string } = {},
): Promise<EventBody[]> {
  const events: EventBody[] = [];
  let after = query.after;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page = await readEvents(app, reader, { ...query, limit: 100, after });
    events.push(...page.events);
    if (page.events.length === 0 && page.nextCursor === (after ?? null)) return events;
    expect(page.nextCursor).not.toBeNull();
    if (after !== undefined) expect(page.nextCursor! > after, 'the cursor moves forward').toBe(true);
    after = page.nextCursor!;
  }
  throw new Error('GET /events never reached the end of the log');
}

/** The newest event id in the table (undefined when empty): events recorded after it are "new". */
export async function newestEventId(app: App): Promise<string | undefined> {
  const row = await app.context.database.db
    .selectFrom('events')
    .select('id')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}
