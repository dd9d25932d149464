import type { FastifyInstance } from 'fastify';
import { requireActor, requireRole } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Message, errors, ref } from '../../../core/http/schemas.js';
import { typed } from '../../../core/http/typed.js';
import { ReportIdParams } from '../reports.schemas.js';
import {
  ModerateReportBody,
  ModerateReportResult,
  ModerationListQuery,
  ModerationReportDetail,
  ModerationReportList,
} from './moderation.schemas.js';
import type { ReportModerationService } from './moderation.service.js';

const tags = ['reports'];
const security = SECURED;

export async function reportModerationRoutes(
  fastify: FastifyInstance,
  { moderation }: { moderation: ReportModerationService },
): Promise<void> {
  const app = typed(fastify);

  app.get(
    '/reports/moderation/all',
    {
      preHandler: requireRole('MODERATOR'),
      schema: {
        tags,
        summary: 'All reports, with reporter and target (moderator, admin or super admin)',
        description:
          '`total` counts the reports in the filtered status (or in every status), from counters kept in ' +
          'step with every report change.',
        operationId: 'listReportsForModeration',
        querystring: ModerationListQuery,
        security,
        response: { 200: ModerationReportList, ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { status, order = 'newest', limit = 20, offset = 0 } = request.query;
      const { reports, total } = await moderation.list(
        { ...(status !== undefined ? { status } : {}), order },
        limit,
        offset,
      );
      return { reports, total, meta: { total, limit, offset } };
    },
  );

  app.get(
    '/reports/moderation/:reportId',
    {
      preHandler: requireRole('MODERATOR'),
      schema: {
        tags,
        summary: 'A report with its reporter, reported user (and previousReports), resource and history',
        description:
          'One report with its reporter, the reported user (with their previous reports) or resource, and ' +
          "the report's moderation history. Moderators and admins only.",
        operationId: 'getReportForModeration',
        params: ReportIdParams,
        security,
        response: { 200: ref(ModerationReportDetail), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => moderation.detail(request.params.reportId),
  );

  app.patch(
    '/reports/moderation/:reportId',
    {
      preHandler: requireRole('MODERATOR'),
      schema: {
        tags,
        summary: 'Take a report under review, resolve or dismiss it (moderator, admin or super admin)',
        description:
          'TAKE_UNDER_REVIEW: PENDING → UNDER_REVIEW; RESOLVE and DISMISS: PENDING or UNDER_REVIEW → RESOLVED ' +
          '/ DISMISSED; anything else 409. `resolution` goes with RESOLVE or DISMISS; `userAction` only with ' +
          'RESOLVE of a USER report (400 otherwise): WARNING is recorded, SUSPENSION suspends the account ' +
          'for `suspensionDays` (default 7; never shortens a longer running suspension), BAN bans it and ' +
          'revokes its keys and tokens. 403 when you filed the report, it is about you (or your resource), ' +
          "or the account's role is not below yours (a super admin may act on anyone). Suspending a banned " +
          'account: 409 ACCOUNT_ALREADY_BANNED.',
        operationId: 'moderateReport',
        params: ReportIdParams,
        body: ModerateReportBody,
        security,
        response: { 200: ModerateReportResult, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => moderation.decide(requireActor(request), request.params.reportId, request.body),
  );

  app.delete(
    '/reports/moderation/:reportId',
    {
      preHandler: requireRole('ADMIN'),
      schema: {
        tags,
        summary: 'Delete a report permanently, with its history (admin or super admin)',
        description: 'Not a report you filed or one about you (403).',
        operationId: 'deleteReportForModeration',
        params: ReportIdParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      await moderation.remove(requireActor(request), request.params.reportId);
      return { message: 'Report deleted permanently' };
    },
  );
}
