// Duplicates across owners (spec/extensions.md §2.4): which uploads are marked, who sees `duplicateOf` (single
// read, list, upload answer), the queue mark on PENDING versions, and what a deleted original does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toVersionFile } from '../../../src/modules/versions/versions.mapper.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { addContributor, createResource } from '../../resources/helpers.js';
import { addMember, createTeam } from '../../teams/helpers.js';
import { act, uploadFile, versionUrl } from '../helpers.js';
import { approvedResource, draftWith, listedFiles, readMarked, storedMark, uniqueJar } from './helpers.js';

let t: TestApp;
let moderator: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  moderator = await createUser(t.app, { role: 'MODERATOR' });
});
afterAll(async () => t.close());

/** An original by `author` (APPROVED resource, APPROVED version) and its content. */
async function publishedOriginal(author: TestUser) {
  const jar = uniqueJar();
  const resource = await approvedResource(t.app, author, moderator);
  const { version, file } = await draftWith(t.app, author, resource.id, jar);
  await act(t.app, author, resource.id, version.id, 'submit');
  await act(t.app, moderator, resource.id, version.id, 'approve');
  return { jar, resource, version, file };
}

describe('which uploads are marked', () => {
  it("another owner's upload of the same content is marked with the earliest original", async () => {
    const [author, copycat] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const original = await publishedOriginal(author);
    const copy = await approvedResource(t.app, copycat, moderator);
    const { file } = await draftWith(t.app, copycat, copy.id, original.jar);
    const expected = {
      resourceId: original.resource.id,
      versionId: original.version.id,
      fileId: original.file.id,
    };
    expect(file.duplicateOf).toEqual(expected);
    expect(await storedMark(t.app, file.id)).toBe(original.file.id);
    expect(original.file.duplicateOf).toBeUndefined();

    // A third owner's copy points at the earliest file, not at the first copy.
    const third = await createUser(t.app);
    const other = await approvedResource(t.app, third, moderator);
    const again = await draftWith(t.app, third, other.id, original.jar);
    expect(again.file.duplicateOf).toEqual(expected);
  });

  it('the same owner re-uploading into another resource or version is not marked', async () => {
    const author = await createUser(t.app);
    const original = await publishedOriginal(author);
    const second = await approvedResource(t.app, author, moderator);
    const { file } = await draftWith(t.app, author, second.id, original.jar);
    expect(file.duplicateOf).toBeUndefined();
    const sameResource = await draftWith(t.app, author, original.resource.id, original.jar);
    expect(sameResource.file.duplicateOf).toBeUndefined();
    expect(await storedMark(t.app, file.id)).toBeNull();
  });

  it('the author re-uploading after a copycat is not marked as the copy', async () => {
    const [author, copycat] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const original = await publishedOriginal(author);
    const copy = await approvedResource(t.app, copycat, moderator);
    await draftWith(t.app, copycat, copy.id, original.jar);
    const update = await draftWith(t.app, author, original.resource.id, original.jar);
    expect(update.file.duplicateOf).toBeUndefined();
    expect(await storedMark(t.app, update.file.id)).toBeNull();
  });

  it('team resources: the team and its members are one owner side; other users and teams are not', async () => {
    const [teamOwner, member, outsider, otherTeamOwner] = await Promise.all([
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
    ]);
    const team = await createTeam(t.app, teamOwner);
    await addMember(t.app, team.id, teamOwner, member, 'MEMBER');
    const otherTeam = await createTeam(t.app, otherTeamOwner);
    await addMember(t.app, otherTeam.id, otherTeamOwner, member, 'MEMBER');

    // A member's personal resource first, then the team's: not a duplicate either way.
    const personal = await approvedResource(t.app, member, moderator);
    const jar = uniqueJar();
    const first = await draftWith(t.app, member, personal.id, jar);
    const teamResource = await approvedResource(t.app, teamOwner, moderator, team.id);
    const teamUpload = await draftWith(t.app, teamOwner, teamResource.id, jar);
    expect(teamUpload.file.duplicateOf).toBeUndefined();

    // The team's content first, then a member's personal resource: not a duplicate.
    const teamJar = uniqueJar();
    const teamFirst = await draftWith(t.app, teamOwner, teamResource.id, teamJar);
    const memberCopy = await draftWith(t.app, member, personal.id, teamJar);
    expect(memberCopy.file.duplicateOf).toBeUndefined();

    // An outsider, and another team (even one sharing a member), are other owner sides; but the shared member's
    // personal resource is on both teams' sides.
    const outsiderResource = await approvedResource(t.app, outsider, moderator);
    const outsiderCopy = await draftWith(t.app, outsider, outsiderResource.id, teamJar);
    expect(outsiderCopy.file.duplicateOf).toMatchObject({ fileId: teamFirst.file.id });
    const otherTeamResource = await approvedResource(t.app, otherTeamOwner, moderator, otherTeam.id);
    const otherTeamCopy = await draftWith(t.app, otherTeamOwner, otherTeamResource.id, teamJar);
    expect(otherTeamCopy.file.duplicateOf).toEqual({
      resourceId: teamResource.id,
      versionId: teamFirst.version.id,
      fileId: teamFirst.file.id,
    });
    const sharedMemberCopy = await draftWith(t.app, otherTeamOwner, otherTeamResource.id, jar);
    expect(sharedMemberCopy.file.duplicateOf).toBeUndefined();
    expect(first.file.duplicateOf).toBeUndefined();
  });
});

describe('who sees duplicateOf', () => {
  it('owner side, contributors and moderators; not other users, anonymous callers, or default views', async () => {
    const [author, copycat, contributor, teammate, stranger] = await Promise.all([
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
    ]);
    const team = await createTeam(t.app, copycat);
    await addMember(t.app, team.id, copycat, teammate, 'MEMBER');
    const original = await publishedOriginal(author);
    const copy = await approvedResource(t.app, copycat, moderator, team.id);
    await addContributor(t.app, copycat, copy.id, contributor, 'CONTRIBUTOR');
    const { version, file } = await draftWith(t.app, contributor, copy.id, original.jar);
    expect(file.duplicateOf).toMatchObject({ fileId: original.file.id });
    await act(t.app, copycat, copy.id, version.id, 'submit');
    await act(t.app, moderator, copy.id, version.id, 'approve');

    for (const viewer of [copycat, teammate, contributor, moderator]) {
      const read = await readMarked(t.app, viewer, copy.id, version.id);
      expect(read.files[0]!.duplicateOf, viewer.username).toEqual({
        resourceId: original.resource.id,
        versionId: original.version.id,
        fileId: original.file.id,
      });
      expect((await listedFiles(t.app, viewer, copy.id)).get(file.id)?.duplicateOf).toMatchObject({
        fileId: original.file.id,
      });
    }
    for (const viewer of [stranger, author, null]) {
      const read = await readMarked(t.app, viewer, copy.id, version.id);
      expect(read.files[0]!.id).toBe(file.id);
      expect('duplicateOf' in read.files[0]!).toBe(false);
      const listed = (await listedFiles(t.app, viewer, copy.id)).get(file.id);
      expect(listed).toBeDefined();
      expect('duplicateOf' in listed!).toBe(false);
    }
  });

  it('a view built without the permission (lookups by hash) hides it', async () => {
    const row = await t.app.context.database.db
      .selectFrom('version_files')
      .selectAll()
      .where('duplicate_of_file_id', 'is not', null)
      .executeTakeFirstOrThrow();
    const joined = { ...row, duplicate_version_id: 'v', duplicate_resource_id: 'r' };
    expect('duplicateOf' in toVersionFile(joined)).toBe(false);
    expect(toVersionFile(joined, true).duplicateOf).toEqual({
      resourceId: 'r',
      versionId: 'v',
      fileId: row.duplicate_of_file_id,
    });
  });
});

describe('the moderation queue mark', () => {
  it('a PENDING version counts its duplicate files in moderation.duplicateFiles; a clean one shows 0', async () => {
    const [author, copycat] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const original = await publishedOriginal(author);
    const copy = await approvedResource(t.app, copycat, moderator);
    const { version } = await draftWith(t.app, copycat, copy.id, original.jar);
    await uploadFile(t.app, copycat, copy.id, version.id, uniqueJar());
    await act(t.app, copycat, copy.id, version.id, 'submit');
    const seen = await readMarked(t.app, moderator, copy.id, version.id);
    expect(seen.status).toBe('PENDING');
    expect(seen.moderation).toMatchObject({ position: expect.any(Number), duplicateFiles: 1 });
    expect((await readMarked(t.app, copycat, copy.id, version.id)).moderation?.duplicateFiles).toBe(1);

    const clean = await draftWith(t.app, copycat, copy.id, uniqueJar());
    await act(t.app, copycat, copy.id, clean.version.id, 'submit');
    expect((await readMarked(t.app, moderator, copy.id, clean.version.id)).moderation?.duplicateFiles).toBe(
      0,
    );
    // Not PENDING any more: no moderation block at all.
    await act(t.app, moderator, copy.id, version.id, 'approve');
    expect((await readMarked(t.app, moderator, copy.id, version.id)).moderation).toBeUndefined();
  });
});

describe('a deleted original', () => {
  it('clears the mark (ON DELETE SET NULL), for a deleted file and for a deleted version', async () => {
    const [author, copycat] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const authorResource = await createResource(t.app, author);
    const jar = uniqueJar();
    const original = await draftWith(t.app, author, authorResource.id, jar);
    const copy = await approvedResource(t.app, copycat, moderator);
    const copied = await draftWith(t.app, copycat, copy.id, jar);
    expect(copied.file.duplicateOf).toMatchObject({ fileId: original.file.id });

    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `${versionUrl(authorResource.id, original.version.id)}/files/${original.file.id}`,
      headers: author.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(await storedMark(t.app, copied.file.id)).toBeNull();
    const read = await readMarked(t.app, copycat, copy.id, copied.version.id);
    expect('duplicateOf' in read.files[0]!).toBe(false);

    const secondJar = uniqueJar();
    const second = await draftWith(t.app, author, authorResource.id, secondJar);
    const secondCopy = await draftWith(t.app, copycat, copy.id, secondJar);
    expect(secondCopy.file.duplicateOf).toMatchObject({ fileId: second.file.id });
    const removed = await t.app.inject({
      method: 'DELETE',
      url: versionUrl(authorResource.id, second.version.id),
      headers: author.headers,
    });
    expect(removed.statusCode, removed.body).toBeLessThan(300);
    expect(await storedMark(t.app, secondCopy.file.id)).toBeNull();
  });
});
