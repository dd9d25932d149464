// The deletion hook other modules (versions, files, galleries) use: a cleanup collects its rows' storage keys
// inside the delete transaction, and gets them back to remove the objects after the commit; a failing cleanup
// rolls the whole deletion back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccess } from '../../src/core/auth/access.js';
import type { Actor } from '../../src/core/auth/authenticate.js';
import { createResourceAccess } from '../../src/core/auth/resource-access.js';
import { createResourceDeletion } from '../../src/modules/resources/delete-resource.js';
import type { ResourceHead } from '../../src/modules/resources/resources.repo.js';
import { buildTestApp } from '../helpers/app.js';
import type { TestApp } from '../helpers/app.js';
import { createResourceCast, expectResourceInvariants, resourceFor } from './helpers.js';
import type { ResourceCast } from './helpers.js';

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

function deletion() {
  const { db, dialect } = t.app.context.database;
  return createResourceDeletion({
    db,
    dialect,
    storage: t.app.context.storage,
    resourceAccess: createResourceAccess({ db, access: createAccess({ db }) }),
  });
}

const actorOf = (user: { id: string }): Actor => ({
  userId: user.id,
  role: 'USER',
  credential: { kind: 'api_key', id: 'x' },
});

describe('resource deletion cleanups', () => {
  it('collect runs inside the transaction while the resource row still exists; objects go after the commit', async () => {
    const resource = await resourceFor(t.app, cast, 'TEAM', 'APPROVED');
    const events: string[] = [];
    let seen: ResourceHead | undefined;
    const subject = deletion();
    subject.registerCleanup({
      name: 'probe',
      async collect(trx, row) {
        seen = row;
        const stillThere = await trx
          .selectFrom('resources')
          .select('id')
          .where('id', '=', row.id)
          .executeTakeFirst();
        events.push(`collect:${stillThere !== undefined}`);
        return ['files/a', 'files/b'];
      },
      async removeObjects(keys) {
        const gone = await t.app.context.database.db
          .selectFrom('resources')
          .select('id')
          .where('id', '=', resource.id)
          .executeTakeFirst();
        events.push(`remove:${keys.join(',')}:${gone === undefined}`);
      },
    });
    subject.registerCleanup({
      name: 'nothing',
      collect: async () => [],
      removeObjects: async () => void events.push('never'),
    });
    await subject.remove(actorOf(cast.teamAdmin), resource.id);
    expect(events).toEqual(['collect:true', 'remove:files/a,files/b:true']);
    expect(seen).toMatchObject({
      id: resource.id,
      status: 'APPROVED',
      owner_type: 'TEAM',
      owner_id: cast.team.id,
    });
    await expectResourceInvariants(t.app);
  });

  it('a cleanup that fails rolls the deletion back', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'PENDING');
    const subject = deletion();
    let removed = false;
    subject.registerCleanup({
      name: 'broken',
      collect: async () => {
        throw new Error('cannot collect');
      },
      removeObjects: async () => {
        removed = true;
      },
    });
    await expect(subject.remove(actorOf(cast.owner), resource.id)).rejects.toThrow('cannot collect');
    expect(removed).toBe(false);
    const still = await t.app.inject({
      method: 'GET',
      url: `/resources/${resource.id}`,
      headers: cast.owner.headers,
    });
    expect(still.statusCode).toBe(200);
    await expectResourceInvariants(t.app);
  });

  it('checks rights before anything runs', async () => {
    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const subject = deletion();
    let collected = false;
    subject.registerCleanup({
      name: 'probe',
      collect: async () => ((collected = true), []),
      removeObjects: async () => {},
    });
    await expect(subject.remove(actorOf(cast.contributor), resource.id)).rejects.toMatchObject({
      statusCode: 403,
    });
    expect(collected).toBe(false);
  });
});
