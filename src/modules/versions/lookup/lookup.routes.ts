// GET /version-files/:hash, POST /version-files/lookup, POST /version-files/update and
// GET /resources/:resourceId/versions/latest (spec/extensions.md §2.1).
import type { FastifyInstance } from 'fastify';
import { OPTIONAL_AUTH } from '../../../core/http/openapi.js';
import { errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { VERSION_TAGS } from '../versions.routes.js';
import { Version } from '../versions.schemas.js';
import {
  AlgorithmQuery,
  FileMatch,
  HashParams,
  LatestParams,
  LatestQuery,
  LookupBody,
  LookupResult,
  MAX_HASHES,
  UpdateCheckBody,
  UpdateCheckResult,
} from './lookup.schemas.js';
import type { LookupService } from './lookup.service.js';

const tags = VERSION_TAGS;
const visible =
  'Only files the caller may see count: everyone sees the files of APPROVED and ARCHIVED versions of APPROVED ' +
  'resources; the owner side, contributors and moderators also see the other versions of their resources. ';
const newest =
  '"Newest" is by approval time, then creation time (a version never approved ranks below approved ones). ';

export async function lookupRoutes(
  fastify: FastifyInstance,
  { lookup }: { lookup: LookupService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/version-files/:hash',
    {
      schema: {
        tags,
        summary: 'The file with this hash, with its version and resource',
        description:
          visible +
          newest +
          'When several visible files have the hash, the one of the newest version is answered; 404 when none ' +
          'is visible. The hash is hex of the algorithm’s length (400 otherwise), in any case.',
        operationId: 'getVersionFileByHash',
        params: HashParams,
        querystring: AlgorithmQuery,
        security: OPTIONAL_AUTH,
        response: { 200: ref(FileMatch), ...errors(400, 401, 404) },
      },
    },
    async (request) => lookup.byHash(request.actor, request.params.hash, request.query.algorithm ?? 'sha512'),
  );

  app.post(
    '/version-files/lookup',
    {
      schema: {
        tags,
        summary: 'The files with any of these hashes, by hash',
        description:
          `At most ${MAX_HASHES} hashes (400 beyond), all of the algorithm’s length. ` +
          visible +
          newest +
          'Each hash maps to the file GET /version-files/{hash} would answer; hashes without a visible file are ' +
          'absent. Keys are lower-case.',
        operationId: 'lookupVersionFiles',
        body: LookupBody,
        security: OPTIONAL_AUTH,
        response: { 200: LookupResult, ...errors(400, 401) },
      },
    },
    async (request) =>
      lookup.lookupMany(request.actor, request.body.hashes, request.body.algorithm ?? 'sha512'),
  );

  app.post(
    '/version-files/update',
    {
      schema: {
        tags,
        summary: 'Newer compatible versions of the resources these files belong to',
        description:
          `At most ${MAX_HASHES} hashes. For each hash whose file the caller may see (the one the lookup ` +
          'answers), the newest APPROVED version of the same resource that is compatible with one of ' +
          '`gameVersions` and in one of `channels`, when it is newer than the file’s own version. ' +
          newest +
          'Hashes without a file or without an update are absent.',
        operationId: 'checkVersionFileUpdates',
        body: UpdateCheckBody,
        security: OPTIONAL_AUTH,
        response: { 200: UpdateCheckResult, ...errors(400, 401) },
      },
    },
    async (request) => {
      const { hashes, algorithm, gameVersions, channels } = request.body;
      return lookup.updates(request.actor, {
        hashes,
        algorithm: algorithm ?? 'sha512',
        ...(gameVersions === undefined ? {} : { gameVersions }),
        ...(channels === undefined ? {} : { channels }),
      });
    },
  );

  app.get(
    '/resources/:resourceId/versions/latest',
    {
      schema: {
        tags,
        summary: 'The newest APPROVED version, optionally for a game version and a channel',
        description:
          'Public: the resource must be APPROVED (404 otherwise, whoever asks). ' +
          newest +
          '`gameVersion` is a game version name (GET /game-versions); 404 when no APPROVED version matches. ' +
          'Not the same as the version marked latest (isLatest), which the owner chooses.',
        operationId: 'getLatestVersion',
        params: LatestParams,
        querystring: LatestQuery,
        security: [],
        response: { 200: ref(Version), ...errors(400, 404) },
      },
    },
    async (request) => {
      const { gameVersion, channel } = request.query;
      return lookup.latest(request.params.resourceId, {
        ...(gameVersion === undefined ? {} : { gameVersions: [gameVersion] }),
        ...(channel === undefined ? {} : { channels: [channel] }),
      });
    },
  );
}
