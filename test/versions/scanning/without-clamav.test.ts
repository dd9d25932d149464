// Without CLAMAV_URL (spec/extensions.md §2.4): every file is NOT_SCANNED, the scan job is not registered,
// /ready has no clamav check, and nothing is blocked — even the bytes the scanning tests sign are served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCAN_FILES_JOB } from '../../../src/modules/versions/scanning/register.js';
import { buildTestApp } from '../../helpers/app.js';
import type { TestApp } from '../../helpers/app.js';
import { INFECTED_SAMPLE } from '../../helpers/clamd.js';
import { createResourceCast, resourceFor } from '../../resources/helpers.js';
import type { ResourceCast } from '../../resources/helpers.js';
import { act, createVersion, readVersion, uploadFile, versionUrl } from '../helpers.js';

let t: TestApp;
let cast: ResourceCast;

beforeAll(async () => {
  t = await buildTestApp();
  cast = await createResourceCast(t.app);
});
afterAll(async () => t.close());

describe('scanning not configured', () => {
  it('NOT_SCANNED files, no job, no readiness check; submit, approve and download go through', async () => {
    expect(t.config.clamav).toBeUndefined();
    expect(t.app.context.scheduler.jobs()).not.toContain(SCAN_FILES_JOB);
    const ready = await t.app.inject({ method: 'GET', url: '/ready' });
    expect(Object.keys(ready.json().checks as object)).not.toContain('clamav');

    const resource = await resourceFor(t.app, cast, 'USER', 'APPROVED');
    const version = await createVersion(t.app, cast.owner, resource.id);
    const file = await uploadFile(t.app, cast.owner, resource.id, version.id, {
      data: INFECTED_SAMPLE,
      name: 'sample.txt',
    });
    expect((file as unknown as { scan: unknown }).scan).toEqual({
      status: 'NOT_SCANNED',
      signature: null,
      reason: null,
      scannedAt: null,
    });
    await act(t.app, cast.owner, resource.id, version.id, 'submit');
    await act(t.app, cast.moderator, resource.id, version.id, 'approve');
    const read = await readVersion(t.app, null, resource.id, version.id);
    expect(read.status).toBe('APPROVED');
    const downloaded = await t.app.inject({
      method: 'GET',
      url: `${versionUrl(resource.id, version.id)}/download/${file.id}`,
    });
    expect(downloaded.statusCode, downloaded.body).toBe(302);
  });
});
