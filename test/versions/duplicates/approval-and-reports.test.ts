// Duplicates and scan state in the trusted creators' automatic approval (filesAreClean), and the matches a
// moderator sees on a REUPLOADED_WORK report (spec/extensions.md §2.4).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileScanStatus } from '../../../src/core/db/schema.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { createUser } from '../../helpers/factories.js';
import type { TestUser } from '../../helpers/factories.js';
import { expectError } from '../../helpers/http.js';
import { filesAreClean } from '../../../src/modules/versions/moderation/auto-approval.js';
import { act, createVersion, uploadFile, versionUrl } from '../helpers.js';
import { approvedResource, draftWith, readMarked, uniqueJar } from './helpers.js';

let t: TestApp;
let moderator: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  moderator = await createUser(t.app, { role: 'MODERATOR' });
});
afterAll(async () => t.close());

async function trustedCreator(): Promise<TestUser> {
  const user = await createUser(t.app);
  await t.app.context.database.db
    .updateTable('users')
    .set({ trusted: true })
    .where('id', '=', user.id)
    .execute();
  return user;
}

async function setScanStatus(fileId: string, status: FileScanStatus): Promise<void> {
  await t.app.context.database.db
    .updateTable('version_files')
    .set({ scan_status: status })
    .where('id', '=', fileId)
    .execute();
}

describe('automatic approval of a trusted creator (filesAreClean)', () => {
  it('approves clean files: NOT_SCANNED and CLEAN', async () => {
    const creator = await trustedCreator();
    const resource = await approvedResource(t.app, creator, moderator);
    const { version } = await draftWith(t.app, creator, resource.id, uniqueJar());
    const cleanFile = await uploadFile(t.app, creator, resource.id, version.id, uniqueJar());
    await setScanStatus(cleanFile.id, 'CLEAN');
    expect((await act(t.app, creator, resource.id, version.id, 'submit')).status).toBe('APPROVED');
  });

  it("a duplicate of another owner's file keeps the version PENDING for a moderator", async () => {
    const [author, creator] = await Promise.all([createUser(t.app), trustedCreator()]);
    const authorResource = await approvedResource(t.app, author, moderator);
    const jar = uniqueJar();
    await draftWith(t.app, author, authorResource.id, jar);
    const resource = await approvedResource(t.app, creator, moderator);
    const { version, file } = await draftWith(t.app, creator, resource.id, jar);
    expect(file.duplicateOf).toBeDefined();
    expect((await act(t.app, creator, resource.id, version.id, 'submit')).status).toBe('PENDING');
    const seen = await readMarked(t.app, moderator, resource.id, version.id);
    expect(seen.moderation?.duplicateFiles).toBe(1);
  });

  for (const status of ['PENDING', 'INFECTED', 'ERROR'] as const) {
    it(`a file whose scan is ${status} keeps the version from being approved`, async () => {
      const creator = await trustedCreator();
      const resource = await approvedResource(t.app, creator, moderator);
      const { version, file } = await draftWith(t.app, creator, resource.id, uniqueJar());
      await uploadFile(t.app, creator, resource.id, version.id, uniqueJar());
      await setScanStatus(file.id, status);
      const { db } = t.app.context.database;
      expect(await db.transaction().execute((trx) => filesAreClean(trx, version.id))).toBe(false);
      const submitted = await t.app.inject({
        method: 'POST',
        url: `${versionUrl(resource.id, version.id)}/submit`,
        headers: creator.headers,
      });
      // An INFECTED file may also be refused at submit (409 FILE_INFECTED, the scanning rules): either way the
      // version is not approved.
      if (status === 'INFECTED' && submitted.statusCode === 409) {
        expectError(submitted, 409, 'FILE_INFECTED');
      } else {
        expect(submitted.statusCode, submitted.body).toBe(200);
      }
      const expected = submitted.statusCode === 409 ? 'DRAFT' : 'PENDING';
      expect((await readMarked(t.app, creator, resource.id, version.id)).status).toBe(expected);
    });
  }

  it('filesAreClean: a version without files is not clean', async () => {
    const creator = await trustedCreator();
    const resource = await approvedResource(t.app, creator, moderator);
    const version = await createVersion(t.app, creator, resource.id);
    const { db } = t.app.context.database;
    expect(await db.transaction().execute((trx) => filesAreClean(trx, version.id))).toBe(false);
  });
});

interface ReportDetail {
  reason: string;
  matches?: Array<{
    fileId: string;
    versionId: string;
    resourceId: string;
    duplicateOf: { resourceId: string; versionId: string; fileId: string };
  }>;
}

async function reportResource(reporter: TestUser, resourceId: string, reason: string): Promise<string> {
  const response = await t.app.inject({
    method: 'POST',
    url: `/reports/resources/${resourceId}`,
    headers: reporter.headers,
    payload: { reason, description: 'This is my plugin, re-uploaded' },
  });
  expect(response.statusCode, response.body).toBe(201);
  return (response.json() as { id: string }).id;
}

async function reportDetail(viewer: TestUser, reportId: string) {
  return t.app.inject({ method: 'GET', url: `/reports/moderation/${reportId}`, headers: viewer.headers });
}

describe('REUPLOADED_WORK reports', () => {
  it('show moderators the matches in both directions; other reasons show none', async () => {
    const [author, copycat, bystander] = await Promise.all([
      createUser(t.app),
      createUser(t.app),
      createUser(t.app),
    ]);
    const original = await approvedResource(t.app, author, moderator);
    const jar = uniqueJar();
    const source = await draftWith(t.app, author, original.id, jar);
    const unrelated = await uploadFile(t.app, author, original.id, source.version.id, uniqueJar());
    const copy = await approvedResource(t.app, copycat, moderator);
    const copied = await draftWith(t.app, copycat, copy.id, jar);
    const match = {
      fileId: copied.file.id,
      versionId: copied.version.id,
      resourceId: copy.id,
      duplicateOf: { resourceId: original.id, versionId: source.version.id, fileId: source.file.id },
    };

    // About the copy: its files that duplicate others.
    const aboutCopy = await reportResource(author, copy.id, 'REUPLOADED_WORK');
    const detail = await reportDetail(moderator, aboutCopy);
    expect(detail.statusCode, detail.body).toBe(200);
    expect((detail.json() as ReportDetail).matches).toEqual([match]);

    // About the original: others' files that duplicate it (the same pairs, seen from the other side).
    const aboutOriginal = await reportResource(bystander, original.id, 'REUPLOADED_WORK');
    const other = (await reportDetail(moderator, aboutOriginal)).json() as ReportDetail;
    expect(other.matches).toEqual([match]);
    expect(JSON.stringify(other.matches)).not.toContain(unrelated.id);

    // Another reason: no matches key at all.
    const spam = await reportResource(bystander, copy.id, 'SPAM');
    const spamDetail = (await reportDetail(moderator, spam)).json() as ReportDetail;
    expect(spamDetail.reason).toBe('SPAM');
    expect('matches' in spamDetail).toBe(false);

    // A re-upload report on a resource with no duplicates: an empty list.
    const lonely = await approvedResource(t.app, bystander, moderator);
    await draftWith(t.app, bystander, lonely.id, uniqueJar());
    const none = (
      await reportDetail(moderator, await reportResource(author, lonely.id, 'REUPLOADED_WORK'))
    ).json();
    expect((none as ReportDetail).matches).toEqual([]);

    // Moderators only.
    expectError(await reportDetail(author, aboutCopy), 403);
    expectError(await reportDetail(copycat, aboutCopy), 403);
  });

  it('caps the matches at 50', async () => {
    const [author, copycat] = await Promise.all([createUser(t.app), createUser(t.app)]);
    const original = await approvedResource(t.app, author, moderator);
    const jar = uniqueJar();
    await draftWith(t.app, author, original.id, jar);
    const copy = await approvedResource(t.app, copycat, moderator);
    // 51 marked files: three versions of up to 20 files each.
    let uploaded = 0;
    while (uploaded < 51) {
      const { version } = await draftWith(t.app, copycat, copy.id, jar);
      uploaded += 1;
      for (let index = 1; index < 20 && uploaded < 51; index += 1, uploaded += 1) {
        await uploadFile(t.app, copycat, copy.id, version.id, jar);
      }
    }
    const report = await reportResource(author, copy.id, 'REUPLOADED_WORK');
    const detail = (await reportDetail(moderator, report)).json() as ReportDetail;
    expect(detail.matches).toHaveLength(50);
  });
});
