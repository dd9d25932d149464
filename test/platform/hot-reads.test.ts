// Hot reads (core/db/prepared.ts on the read connection) and the kept anonymous answers (core/http/object-cache.ts):
// they must never show what is not committed, and never keep showing what has changed — whoever changed it.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTSIDE_CHANGES_MS, openReadConnection } from '../../src/core/db/sqlite-reads.js';
import { findProfileRow } from '../../src/modules/users/users.repo.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createUser } from '../helpers/factories.js';
import { createResourceCast, moderate as moderateResource, resourceFor } from '../resources/helpers.js';
import { createApprovedServer, moderate as moderateServer } from '../servers/helpers.js';
import type { TestUser } from '../helpers/factories.js';

/** PATCH /users/me { bio } as `user`, expecting success. */
async function editBio(app: TestApp['app'], user: TestUser, bio: string): Promise<void> {
  const patch = await app.inject({
    method: 'PATCH',
    url: '/users/me',
    headers: user.headers,
    payload: { bio },
  });
  expect(patch.statusCode, patch.body).toBe(200);
}

describe('hot reads and kept answers', () => {
  let t: TestApp;
  let owner: TestUser;
  let viewer: TestUser;

  beforeAll(async () => {
    t = await buildTestApp();
    [owner, viewer] = await Promise.all([createUser(t.app), createUser(t.app)]);
  });
  afterAll(async () => t.close());

  const profile = (url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  /** A write committed outside this app: another process on the same database. */
  async function setBioFromOutside(userId: string, bio: string): Promise<void> {
    const url = t.config.databaseUrl!;
    if (t.app.context.database.dialect === 'postgres') {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query('update users set bio = $1 where id = $2', [bio, userId]);
      await client.end();
      return;
    }
    const other = new Database(url.slice('sqlite:'.length));
    other.pragma('busy_timeout = 5000');
    other.prepare('update users set bio = ? where id = ?').run(bio, userId);
    other.close();
  }

  it('runs SQLite files with a read connection beside the write connection', () => {
    const { database } = t.app.context;
    if (database.dialect === 'sqlite') expect(database.reader).toBeDefined();
    else expect(database.reader).toBeUndefined();
  });

  it("counts this process's commits at once and other processes' commits at the next poll", async () => {
    if (t.app.context.database.dialect !== 'sqlite') return;
    let now = 1_000;
    const reader = openReadConnection(t.config.databaseUrl!.slice('sqlite:'.length), () => now);
    try {
      const start = reader.changes();
      reader.committed();
      expect(reader.changes()).toBe(start + 1);
      await setBioFromOutside(owner.id, 'outside, not yet polled');
      expect(reader.changes()).toBe(start + 1);
      now += OUTSIDE_CHANGES_MS;
      expect(reader.changes()).toBe(start + 2);
      now += OUTSIDE_CHANGES_MS;
      expect(reader.changes()).toBe(start + 2);
    } finally {
      reader.close();
    }
  });

  it('counts every commit of the write connection, and no read', async () => {
    const { db, reader } = t.app.context.database;
    if (reader === undefined) return;
    // Let the poll take in earlier tests' outside writes first.
    await new Promise((resolve) => setTimeout(resolve, OUTSIDE_CHANGES_MS + 2));
    reader.changes();
    const before = reader.changes();
    await db.selectFrom('users').select('id').limit(1).execute();
    expect(reader.changes()).toBe(before);
    await db.updateTable('users').set({ bio: 'autocommit' }).where('id', '=', owner.id).execute();
    expect(reader.changes()).toBeGreaterThan(before);
    // The poll also notices that commit (another bump, harmless); let it, so the next check is exact.
    await new Promise((resolve) => setTimeout(resolve, OUTSIDE_CHANGES_MS + 2));
    const afterAutocommit = reader.changes();
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ bio: 'in a transaction' }).where('id', '=', owner.id).execute();
      expect(reader.changes()).toBe(afterAutocommit);
    });
    expect(reader.changes()).toBeGreaterThan(afterAutocommit);
  });

  it('does not show a transaction its writes before it commits, and shows them right after', async () => {
    const { db, dialect } = t.app.context.database;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wasWritten = new Promise<void>((resolve) => (written = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx.updateTable('users').set({ bio: 'uncommitted' }).where('id', '=', owner.id).execute();
      // Inside the transaction, the hot read sees the transaction's own write.
      expect((await findProfileRow(trx, dialect, { id: owner.id }, undefined))?.bio).toBe('uncommitted');
      written();
      await released;
    });
    await wasWritten;
    if (dialect === 'sqlite') {
      // Outside it, only committed data: the read does not wait for the write connection, and does not see it.
      expect((await findProfileRow(db, dialect, { id: owner.id }, undefined))?.bio).not.toBe('uncommitted');
    }
    release();
    await transaction;
    expect((await findProfileRow(db, dialect, { id: owner.id }, undefined))?.bio).toBe('uncommitted');
  });

  it('serves an anonymous profile again with the same ETag, and 304 to a matching If-None-Match', async () => {
    const first = await profile(`/users/${owner.id}`);
    expect(first.statusCode).toBe(200);
    const second = await profile(`/users/${owner.id}`);
    expect(second.body).toBe(first.body);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
    const cached = await profile(`/users/${owner.id}`, { 'if-none-match': String(first.headers.etag) });
    expect(cached.statusCode).toBe(304);
  });

  it('shows a profile edit to anonymous callers at once, by id and by username', async () => {
    await profile(`/users/${owner.id}`);
    await profile(`/users/username/${owner.username.toUpperCase()}`);
    await editBio(t.app, owner, 'edited through the API');
    expect((await profile(`/users/${owner.id}`)).json().bio).toBe('edited through the API');
    expect((await profile(`/users/username/${owner.username}`)).json().bio).toBe('edited through the API');
  });

  it('shows a change committed by another process within OUTSIDE_CHANGES_MS', async () => {
    const before = await profile(`/users/${owner.id}`);
    await setBioFromOutside(owner.id, 'edited from outside');
    await new Promise((resolve) => setTimeout(resolve, OUTSIDE_CHANGES_MS + 2));
    const after = await profile(`/users/${owner.id}`);
    expect(after.json().bio).toBe('edited from outside');
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('moves follower counts and isFollowing at once, and keeps the viewer out of anonymous answers', async () => {
    const anonymousBefore = (await profile(`/users/${owner.id}`)).json();
    expect(anonymousBefore.isFollowing).toBe(false);
    const follow = await t.app.inject({
      method: 'POST',
      url: `/users/${owner.id}/follow`,
      headers: viewer.headers,
    });
    expect(follow.statusCode).toBeLessThan(300);
    const asViewer = (await profile(`/users/${owner.id}`, viewer.headers)).json();
    expect(asViewer.isFollowing).toBe(true);
    const anonymousAfter = (await profile(`/users/${owner.id}`)).json();
    expect(anonymousAfter.isFollowing).toBe(false);
    expect(anonymousAfter.followerCount).toBe(anonymousBefore.followerCount + 1);
  });

  it('answers 404 for a banned account after the ban, though its profile was served before', async () => {
    const banned = await createUser(t.app);
    expect((await profile(`/users/${banned.id}`)).statusCode).toBe(200);
    const admin = await createUser(t.app, { role: 'ADMIN' });
    const ban = await t.app.inject({
      method: 'PATCH',
      url: `/admin/users/${banned.id}`,
      headers: admin.headers,
      payload: { status: 'BANNED' },
    });
    expect(ban.statusCode).toBe(200);
    expect((await profile(`/users/${banned.id}`)).statusCode).toBe(404);
  });

  it('shows a resource edit and its suspension to anonymous callers at once, by slug and by id', async () => {
    const cast = await createResourceCast(t.app);
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const bySlug = () => profile(`/resources/slug/${resource.slug}`);
    const byId = () => profile(`/resources/${resource.id}`);
    expect((await bySlug()).json().name).toBe(resource.name);
    expect((await byId()).json().name).toBe(resource.name);
    const edit = await t.app.inject({
      method: 'PATCH',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
      payload: { name: 'Renamed while kept' },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    expect((await bySlug()).json().name).toBe('Renamed while kept');
    expect((await byId()).json().name).toBe('Renamed while kept');
    await moderateResource(t.app, cast.moderator, resource.id, 'SUSPEND');
    expect((await bySlug()).statusCode).toBe(404);
    expect((await byId()).statusCode).toBe(404);
    // The owner still sees it (never the kept anonymous answer).
    expect((await profile(`/resources/${resource.id}`, cast.owner.headers)).json().status).toBe('SUSPENDED');
  });

  it('shows a server suspension to anonymous callers at once', async () => {
    const moderator = await createUser(t.app, { role: 'MODERATOR' });
    const server = await createApprovedServer(t.app, owner, moderator);
    expect((await profile(`/servers/slug/${server.slug}`)).statusCode).toBe(200);
    expect((await profile(`/servers/${server.id}`)).statusCode).toBe(200);
    await moderateServer(t.app, moderator, server.id, 'suspend');
    expect((await profile(`/servers/slug/${server.slug}`)).statusCode).toBe(404);
    expect((await profile(`/servers/${server.id}`)).statusCode).toBe(404);
  });
});

describe('an in-memory SQLite database', () => {
  it('keeps one connection: hot reads go through Kysely and nothing is kept', async () => {
    const memory = await buildTestApp({ DATABASE_URL: ':memory:' });
    try {
      expect(memory.app.context.database.reader).toBeUndefined();
      const user = await createUser(memory.app);
      const first = await memory.app.inject({ method: 'GET', url: `/users/${user.id}` });
      expect(first.statusCode).toBe(200);
      await editBio(memory.app, user, 'in memory');
      expect((await memory.app.inject({ method: 'GET', url: `/users/${user.id}` })).json().bio).toBe(
        'in memory',
      );
    } finally {
      await memory.close();
    }
  });
});
