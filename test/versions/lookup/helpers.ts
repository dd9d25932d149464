// Fixtures of the lookup tests: versions with a chosen channel, game versions and file content, moved to a
// status through the HTTP API with the clock advanced between steps (so approval and creation times differ and
// "newest" is decided by the rule under test), and a query counter read from GET /metrics.
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import type { ManualClock } from '../../../src/core/clock.js';
import type { TestUser } from '../../helpers/factories.js';
import { act, createVersion, readVersion, uploadFile } from '../helpers.js';
import type { VersionBody } from '../helpers.js';
import { statementCost } from '../../helpers/statements.js';

export type Status = VersionBody['status'];
export type Channel = 'RELEASE' | 'BETA' | 'ALPHA' | 'SNAPSHOT';

export const digest = (algorithm: 'sha1' | 'sha256' | 'sha512', data: Buffer | string) =>
  createHash(algorithm).update(data).digest('hex');

let contentSequence = 0;
/** File content no other test uses. */
export function uniqueContent(label = 'file'): Buffer {
  contentSequence += 1;
  return Buffer.from(`${label} ${process.pid} ${contentSequence} ${Math.random()}\n`);
}

export interface VersionSpec {
  status: Status;
  channel?: Channel;
  gameVersionIds: string[];
  content?: Buffer;
}

/**
 * Creates a version with one file and moves it to `spec.status`; the clock moves one minute before creation
 * and before the approval, so later calls are newer by both times unless a test orders approvals itself.
 */
export async function versionWith(
  app: App,
  clock: ManualClock,
  actors: { editor: TestUser; moderator: TestUser },
  resourceId: string,
  spec: VersionSpec,
): Promise<{ version: VersionBody; content: Buffer }> {
  const { editor, moderator } = actors;
  const content = spec.content ?? uniqueContent();
  clock.advance(60_000);
  const created = await createVersion(app, editor, resourceId, {
    channel: spec.channel ?? 'RELEASE',
    compatibleGameVersionIds: spec.gameVersionIds,
  });
  await uploadFile(app, editor, resourceId, created.id, { data: content, name: 'mod.txt' });
  const id = created.id;
  if (spec.status !== 'DRAFT') await act(app, editor, resourceId, id, 'submit');
  if (spec.status === 'REJECTED') await act(app, moderator, resourceId, id, 'reject', { reason: 'no' });
  if (spec.status === 'APPROVED' || spec.status === 'ARCHIVED') {
    clock.advance(60_000);
    await act(app, moderator, resourceId, id, 'approve');
  }
  if (spec.status === 'ARCHIVED') await act(app, editor, resourceId, id, 'archive');
  const version = await readVersion(app, editor, resourceId, id);
  expect(version.status).toBe(spec.status);
  return { version, content };
}

/**
 * The reads one request costs (METRICS=on). Reads only: a signed-in request may also write the key's last use (at
 * most once a minute), which is the authentication's cost, not the route's.
 */
export const queriesOf = (app: App, request: () => Promise<unknown>): Promise<number> =>
  statementCost(app, 'select', request);

/** `count` random hex digests of the algorithm's length, none of them a stored file's. */
export function randomHashes(count: number, hexLength = 128): string[] {
  return Array.from({ length: count }, (_, index) =>
    createHash('sha512')
      .update(`absent ${index} ${Math.random()}`)
      .digest('hex')
      .repeat(2)
      .slice(0, hexLength),
  );
}
