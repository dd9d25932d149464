import type { FastifyInstance } from 'fastify';
import { requireActor, requireUser } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import { Message, errors, ref } from '../../core/http/schemas.js';
import { typed } from '../../core/http/typed.js';
import {
  CreateResourceReportBody,
  CreateUserReportBody,
  CreatedResourceReport,
  CreatedUserReport,
  MyReportList,
  MyReportsQuery,
  Report,
  ReportIdParams,
  ReportedResourceParams,
  ReportedUserParams,
} from './reports.schemas.js';
import type { ReportsService } from './reports.service.js';
import { locationAt } from '../../core/http/conventions/location.js';

const tags = ['reports'];
const security = SECURED;

export async function reportsRoutes(
  fastify: FastifyInstance,
  { reports }: { reports: ReportsService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/reports/users/:userId',
    {
      config: { location: locationAt('/reports/') },
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Report a user',
        description:
          'A description is required with reason OTHER (400). Reporting yourself: 400 SELF_REPORT. Unknown or ' +
          'banned user: 404. One open (PENDING or UNDER_REVIEW) report per reporter and user: 409 ' +
          'REPORT_ALREADY_OPEN.',
        operationId: 'reportUser',
        params: ReportedUserParams,
        body: CreateUserReportBody,
        security,
        response: { 201: CreatedUserReport, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await reports.reportUser(requireActor(request), request.params.userId, request.body)),
  );

  app.post(
    '/reports/resources/:resourceId',
    {
      config: { location: locationAt('/reports/') },
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Report a resource',
        description:
          'A description is required with reason OTHER (400). A resource that does not exist or that you may ' +
          'not see: 404. Your own resource (user owner, or OWNER/ADMIN of the owning team): 400 SELF_REPORT. ' +
          'One open report per reporter and resource: 409 REPORT_ALREADY_OPEN. `resourceType` is the ' +
          "resource's type when it was reported.",
        operationId: 'reportResource',
        params: ReportedResourceParams,
        body: CreateResourceReportBody,
        security,
        response: { 201: CreatedResourceReport, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await reports.reportResource(requireActor(request), request.params.resourceId, request.body)),
  );

  app.get(
    '/reports/me',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'The reports you filed, newest first',
        description: 'The reports you filed, newest first, with their current status. Needs credentials.',
        operationId: 'listMyReports',
        querystring: MyReportsQuery,
        security,
        response: { 200: MyReportList, ...errors(400, 401) },
      },
    },
    async (request) => {
      const { limit = 20, offset = 0 } = request.query;
      const { reports: items, total } = await reports.listMine(requireActor(request), limit, offset);
      return { reports: items, total, meta: { total, limit, offset } };
    },
  );

  app.get(
    '/reports/:reportId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'A report, with moderator notes and resolution (its reporter, or moderator and up)',
        description: "Anyone else gets 404: another user's report is not revealed.",
        operationId: 'getReport',
        params: ReportIdParams,
        security,
        response: { 200: ref(Report), ...errors(400, 401, 404) },
      },
    },
    async (request) => reports.get(requireActor(request), request.params.reportId),
  );

  app.delete(
    '/reports/:reportId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Cancel your report while it is PENDING',
        description:
          'The report is removed. Not PENDING any more: 409. A moderator who is not the reporter: 403; ' +
          'anyone else: 404.',
        operationId: 'cancelReport',
        params: ReportIdParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      await reports.cancel(requireActor(request), request.params.reportId);
      return { message: 'Report cancelled' };
    },
  );
}
