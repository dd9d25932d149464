// Moderation threads (spec/extensions.md §4) through the real app: who reads and posts in the thread of a
// resource or a server (owner side and MODERATOR+; 404 for everyone else, 401 anonymous), internal messages,
// paging, the body's limits and sanitizing, versionId, the thread going with its subject, and /openapi.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { expectError } from '../../helpers/http.js';
import { loadOpenApi } from '../../helpers/openapi.js';
import {
  RESOURCE_PERSONAS,
  createResource,
  createResourceCast,
  resourceFor,
} from '../../resources/helpers.js';
import type { ResourceCast, ResourcePersona } from '../../resources/helpers.js';
import { createServer } from '../../servers/helpers.js';
import { createVersion } from '../../versions/helpers.js';
import { getThread, post, postMessage, readThread } from './helpers.js';
import type { ThreadOf } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t?.close());

const userOf = (persona: Exclude<ResourcePersona, 'anonymous'>) => cast[persona];

/** Who reads a resource thread: the owner side (any team role), contributors of either role, MODERATOR+. */
const RESOURCE_READERS: Record<'USER' | 'TEAM', readonly ResourcePersona[]> = {
  USER: ['owner', 'contributor', 'maintainer', 'moderator', 'admin'],
  TEAM: [
    'teamOwner',
    'teamAdmin',
    'teamModerator',
    'teamMember',
    'contributor',
    'maintainer',
    'moderator',
    'admin',
  ],
};

describe('who reads and posts in a resource thread', () => {
  for (const kind of ['USER', 'TEAM'] as const) {
    for (const status of ['PENDING', 'APPROVED'] as const) {
      it(`${kind} resource, ${status}: the owner side and moderators, 404 for the rest, 401 anonymous`, async () => {
        const resource = await resourceFor(t.app, cast, kind, status);
        const of: ThreadOf = { kind: 'resources', id: resource.id };
        const first = await post(t.app, of, cast.moderator, { body: 'Please add a license file.' });
        for (const persona of RESOURCE_PERSONAS) {
          const as = persona === 'anonymous' ? null : userOf(persona);
          const read = await getThread(t.app, of, as);
          const posted = await postMessage(t.app, of, as, { body: `from ${persona}` });
          if (persona === 'anonymous') {
            expectError(read, 401, 'UNAUTHORIZED');
            expectError(posted, 401, 'UNAUTHORIZED');
          } else if (RESOURCE_READERS[kind].includes(persona)) {
            expect(read.statusCode, `${persona} reads`).toBe(200);
            expect((read.json() as { messages: Array<{ id: string }> }).messages[0]!.id).toBe(first.id);
            expect(posted.statusCode, `${persona} posts`).toBe(201);
          } else {
            // Not 403: whether the thread (or a pending resource) exists is not revealed.
            expectError(read, 404, 'NOT_FOUND');
            expectError(posted, 404, 'NOT_FOUND');
          }
        }
        // Every refused post changed nothing.
        const thread = await readThread(t.app, of, cast.moderator);
        expect(thread.messages.map((message) => message.body)).toEqual([
          'Please add a license file.',
          ...RESOURCE_READERS[kind].map((persona) => `from ${persona}`),
        ]);
      });
    }
  }

  it('an unknown or malformed id is 404 for a moderator too', async () => {
    for (const id of ['0192d5e4-0000-7000-8000-000000000000', 'not-an-id', '%20']) {
      expectError(await getThread(t.app, { kind: 'resources', id }, cast.moderator), 404, 'NOT_FOUND');
      expectError(
        await postMessage(t.app, { kind: 'servers', id }, cast.moderator, { body: 'x' }),
        404,
        'NOT_FOUND',
      );
    }
  });
});

describe('who reads and posts in a server thread', () => {
  it('user server: the owner and moderators; team server: every team member; 404 for the rest', async () => {
    const own = await createServer(t.app, cast.owner);
    const team = await createServer(t.app, cast.teamOwner, { ownerType: 'TEAM', ownerId: cast.team.id });
    const readers = {
      [own.id]: ['owner', 'moderator', 'admin'],
      [team.id]: ['teamOwner', 'teamAdmin', 'teamModerator', 'teamMember', 'moderator', 'admin'],
    } as Record<string, ResourcePersona[]>;
    for (const server of [own, team]) {
      const of: ThreadOf = { kind: 'servers', id: server.id };
      for (const persona of RESOURCE_PERSONAS) {
        const as = persona === 'anonymous' ? null : userOf(persona);
        const read = await getThread(t.app, of, as);
        const posted = await postMessage(t.app, of, as, { body: `from ${persona}` });
        if (persona === 'anonymous') {
          expectError(read, 401);
          expectError(posted, 401);
        } else if (readers[server.id]!.includes(persona)) {
          expect(read.statusCode, `${persona} reads`).toBe(200);
          expect(posted.statusCode, `${persona} posts`).toBe(201);
        } else {
          expectError(read, 404, 'NOT_FOUND');
          expectError(posted, 404, 'NOT_FOUND');
        }
      }
      const thread = await readThread(t.app, of, cast.admin);
      expect(thread.messages.map((message) => message.body)).toEqual(
        readers[server.id]!.map((persona) => `from ${persona}`),
      );
    }
  });
});

describe('messages', () => {
  it('show the author with their platform role, newest last, and page with limit and offset', async () => {
    const resource = await createResource(t.app, cast.owner);
    const of: ThreadOf = { kind: 'resources', id: resource.id };
    const question = await post(t.app, of, cast.owner, { body: 'When will this be reviewed?' });
    t.clock.advance(1000);
    const answer = await post(t.app, of, cast.moderator, { body: 'This week.' });
    expect(question).toEqual({
      id: expect.any(String),
      author: { id: cast.owner.id, username: cast.owner.username, role: 'USER' },
      body: 'When will this be reviewed?',
      versionId: null,
      internal: false,
      automatic: false,
      createdAt: t.clock.now().toISOString().replace(/.*/, question.createdAt),
    });
    expect(Date.parse(answer.createdAt) - Date.parse(question.createdAt)).toBe(1000);
    expect(answer.author).toEqual({
      id: cast.moderator.id,
      username: cast.moderator.username,
      role: 'MODERATOR',
    });
    const thread = await readThread(t.app, of, cast.owner);
    expect(thread.messages).toEqual([question, answer]);
    expect(thread.total).toBe(2);
    expect(thread.meta).toEqual({ total: 2, limit: 50, offset: 0 });
    const last = await readThread(t.app, of, cast.owner, '?limit=1&offset=1');
    expect(last.messages).toEqual([answer]);
    expect(last.meta).toEqual({ total: 2, limit: 1, offset: 1 });
    for (const query of ['?limit=0', '?limit=101', '?offset=-1', '?limit=abc', '?offset=1e30']) {
      expectError(await getThread(t.app, of, cast.owner, query), 400, 'INVALID_REQUEST');
    }
  });

  it('internal messages: moderators only may post them (403 for the owner side) and only they read them', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM');
    const of: ThreadOf = { kind: 'resources', id: resource.id };
    const visible = await post(t.app, of, cast.moderator, { body: 'Visible to the author' });
    const internal = await post(t.app, of, cast.moderator, { body: 'Between moderators', internal: true });
    expect(internal.internal).toBe(true);
    for (const persona of ['teamOwner', 'teamMember', 'contributor'] as const) {
      expectError(
        await postMessage(t.app, of, userOf(persona), { body: 'sneaky', internal: true }),
        403,
        'FORBIDDEN',
      );
      const thread = await readThread(t.app, of, userOf(persona));
      expect(thread.messages).toEqual([visible]);
      expect(thread.total).toBe(1);
      // Paging over what the owner side sees: the internal message is not even counted.
      expect((await readThread(t.app, of, userOf(persona), '?offset=1')).messages).toEqual([]);
    }
    expect((await readThread(t.app, of, cast.admin)).messages).toEqual([visible, internal]);
    expect((await readThread(t.app, of, cast.moderator)).total).toBe(2);
    // The owner side's posts say internal: false, even when asked explicitly.
    const plain = await post(t.app, of, cast.teamOwner, { body: 'ok', internal: false });
    expect(plain.internal).toBe(false);
  });

  it('bodies: 1–10,000 characters, sanitized like a changelog (no script, no javascript: links)', async () => {
    const resource = await createResource(t.app, cast.owner);
    const of: ThreadOf = { kind: 'resources', id: resource.id };
    expect((await post(t.app, of, cast.owner, { body: 'x'.repeat(10_000) })).body).toHaveLength(10_000);
    for (const body of ['x'.repeat(10_001), '', '   ', 42, null]) {
      expectError(await postMessage(t.app, of, cast.owner, { body }), 400, 'INVALID_REQUEST');
    }
    expectError(await postMessage(t.app, of, cast.owner, {}), 400, 'INVALID_REQUEST');
    // Nothing but markup that cannot stay: empty once sanitized.
    expectError(
      await postMessage(t.app, of, cast.owner, { body: '<script>alert(1)</script>' }),
      400,
      'INVALID_REQUEST',
    );
    const cleaned = await post(t.app, of, cast.owner, {
      body:
        '**Hi** <script>alert(1)</script><img src=x onerror="alert(2)"> ' +
        '<a href="javascript:alert(3)">html</a> [md](javascript:alert(4)) [ok](https://example.com/x) ' +
        '![img](data:text/html;base64,PHNjcmlwdD4=)\n\n[ref]: vbscript:msgbox',
    });
    expect(cleaned.body).not.toMatch(/script|onerror|alert\(|data:|vbscript/i);
    expect(cleaned.body).toContain('**Hi**');
    expect(cleaned.body).toContain('[ok](https://example.com/x)');
    expect(cleaned.body).toContain('>html</a>');
    expect(cleaned.body).toContain('[md] [ok]');
    expect(cleaned.body).toContain('[ref]:');
    // What is stored is what is shown.
    const stored = await readThread(t.app, of, cast.owner);
    expect(stored.messages.at(-1)).toEqual(cleaned);
  });

  it('protected fields in the body are ignored; wrong types are 400', async () => {
    const resource = await createResource(t.app, cast.owner);
    const of: ThreadOf = { kind: 'resources', id: resource.id };
    const message = await post(t.app, of, cast.owner, {
      body: 'hello',
      automatic: true,
      author: { id: cast.admin.id },
      id: 'chosen',
      createdAt: '2000-01-01T00:00:00.000Z',
    });
    expect(message.automatic).toBe(false);
    expect(message.author?.id).toBe(cast.owner.id);
    expect(message.id).not.toBe('chosen');
    expect(message.createdAt).not.toBe('2000-01-01T00:00:00.000Z');
    expectError(await postMessage(t.app, of, cast.owner, { body: 'x', internal: 'yes' }), 400);
    expectError(await postMessage(t.app, of, cast.owner, { body: 'x', versionId: 12 }), 400);
    expectError(await postMessage(t.app, of, cast.owner, { body: ['x'] }), 400);
  });

  it('versionId: a version of this resource; another resource’s or an unknown one is 400', async () => {
    const resource = await createResource(t.app, cast.owner);
    const other = await createResource(t.app, cast.owner);
    const version = await createVersion(t.app, cast.owner, resource.id);
    const foreign = await createVersion(t.app, cast.owner, other.id);
    const of: ThreadOf = { kind: 'resources', id: resource.id };
    const about = await post(t.app, of, cast.owner, { body: 'About 1.0', versionId: version.id });
    expect(about.versionId).toBe(version.id);
    expect((await post(t.app, of, cast.owner, { body: 'general', versionId: null })).versionId).toBeNull();
    for (const versionId of [foreign.id, '0192d5e4-0000-7000-8000-000000000000', 'x'.repeat(65)]) {
      const response = await postMessage(t.app, of, cast.owner, { body: 'x', versionId });
      expectError(response, 400, 'INVALID_REQUEST');
    }
    // Deleting the version keeps the message, without the reference.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/resources/${resource.id}/versions/${version.id}`,
      headers: cast.owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBeLessThan(300);
    const thread = await readThread(t.app, of, cast.owner);
    expect(thread.messages[0]).toEqual({ ...about, versionId: null });
    // Server threads have no versions: the field is not part of their body and is dropped.
    const server = await createServer(t.app, cast.owner);
    const onServer = await post(t.app, { kind: 'servers', id: server.id }, cast.owner, {
      body: 'x',
      versionId: version.id,
    });
    expect(onServer.versionId).toBeNull();
  });

  it('a deleted resource or server takes its thread along', async () => {
    const resource = await createResource(t.app, cast.owner);
    const server = await createServer(t.app, cast.owner);
    await post(t.app, { kind: 'resources', id: resource.id }, cast.owner, { body: 'r' });
    await post(t.app, { kind: 'resources', id: resource.id }, cast.moderator, { body: 'r2', internal: true });
    await post(t.app, { kind: 'servers', id: server.id }, cast.owner, { body: 's' });
    const { db } = t.app.context.database;
    const count = async (column: 'resource_id' | 'server_id', id: string) =>
      (await db.selectFrom('moderation_messages').select('id').where(column, '=', id).execute()).length;
    expect(await count('resource_id', resource.id)).toBe(2);
    expect(await count('server_id', server.id)).toBe(1);
    for (const url of [`/resources/${resource.id}`, `/servers/${server.id}`]) {
      const response = await t.app.inject({ method: 'DELETE', url, headers: cast.owner.headers });
      expect(response.statusCode, response.body).toBe(204);
    }
    expect(await count('resource_id', resource.id)).toBe(0);
    expect(await count('server_id', server.id)).toBe(0);
    expectError(await getThread(t.app, { kind: 'resources', id: resource.id }, cast.moderator), 404);
    expectError(await getThread(t.app, { kind: 'servers', id: server.id }, cast.moderator), 404);
  });
});

describe('/openapi.json', () => {
  it('documents the four thread routes with schemas, security and errors', async () => {
    const document = await loadOpenApi(t.app);
    const expected = {
      '/resources/{id}/moderation/thread': ['get', 'getResourceModerationThread', ['400', '401', '404']],
      '/resources/{id}/moderation/thread/messages': [
        'post',
        'postResourceModerationMessage',
        ['400', '401', '403', '404'],
      ],
      '/servers/{id}/moderation/thread': ['get', 'getServerModerationThread', ['400', '401', '404']],
      '/servers/{id}/moderation/thread/messages': [
        'post',
        'postServerModerationMessage',
        ['400', '401', '403', '404'],
      ],
    } as const;
    for (const [path, [method, operationId, errorStatuses]] of Object.entries(expected)) {
      const operation = document.paths[path]?.[method];
      expect(operation, path).toBeDefined();
      expect(operation!.operationId).toBe(operationId);
      expect(operation!.summary).toEqual(expect.any(String));
      expect(operation!.tags?.length).toBe(1);
      expect(operation!.security).toEqual([{ apiKey: [] }, { bearerAuth: [] }]);
      const success = method === 'get' ? '200' : '201';
      // The document adds the statuses every route can answer with (429, 304…: openapi-responses.ts).
      expect(Object.keys(operation!.responses ?? {})).toEqual(
        expect.arrayContaining([success, ...errorStatuses]),
      );
    }
    const schemas = (document as unknown as { components: { schemas: Record<string, unknown> } }).components
      .schemas;
    expect(schemas['ModerationThreadMessage']).toMatchObject({
      properties: { internal: { type: 'boolean' }, body: { type: 'string' } },
    });
  });
});
