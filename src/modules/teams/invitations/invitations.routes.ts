import type { FastifyInstance } from 'fastify';
import { typed } from '../../../core/http/typed.js';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Message, errors, ref } from '../../../core/http/schemas.js';
import { TeamIdParams } from '../teams.schemas.js';
import {
  CreateInvitationBody,
  InvitationIdParams,
  InvitationStatusQuery,
  MyInvitationList,
  RespondBody,
  RespondResult,
  TeamInvitation,
  TeamInvitationList,
  TeamInvitationParams,
} from './invitations.schemas.js';
import type { InvitationsService } from './invitations.service.js';

const tags = ['teams'];
const security = SECURED;

export async function teamInvitationsRoutes(
  fastify: FastifyInstance,
  { invitations }: { invitations: InvitationsService },
): Promise<void> {
  const app = typed(fastify);

  app.post(
    '/teams/:id/invitations',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Invite a user to the team (owner or admin); valid 7 days',
        description:
          'An admin may invite MEMBER or MODERATOR only (403 otherwise). Unknown user: 404. A current member, or ' +
          'a user with a pending unexpired invitation: 409. An expired pending invitation is superseded ' +
          '(CANCELLED) by the new one.',
        operationId: 'createTeamInvitation',
        params: TeamIdParams,
        body: CreateInvitationBody,
        security,
        response: { 201: ref(TeamInvitation), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const { userId, role = 'MEMBER' } = request.body;
      const invitation = await invitations.invite(requireActor(request), request.params.id, { userId, role });
      return reply.status(201).send(invitation);
    },
  );

  app.get(
    '/teams/:id/invitations',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "The team's invitations, newest first (any team member)",
        description:
          "The team's invitations, newest first. Any member of the team may read them; others get 403 or " +
          '404.',
        operationId: 'listTeamInvitations',
        params: TeamIdParams,
        querystring: InvitationStatusQuery,
        security,
        response: { 200: TeamInvitationList, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => ({
      invitations: await invitations.listForTeam(
        requireActor(request),
        request.params.id,
        request.query.status,
      ),
    }),
  );

  app.delete(
    '/teams/:id/invitations/:invitationId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Cancel a pending invitation (owner or admin; an admin only for MEMBER or MODERATOR ones)',
        description:
          'Cancels a pending invitation. The team owner may cancel any; an admin only invitations for the ' +
          'MEMBER or MODERATOR role.',
        operationId: 'cancelTeamInvitation',
        params: TeamInvitationParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { id, invitationId } = request.params;
      await invitations.cancel(requireActor(request), id, invitationId);
      return { message: 'Invitation cancelled' };
    },
  );

  app.get(
    '/teams/invitations/me',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Your team invitations, newest first',
        description:
          'The invitations addressed to you, newest first, so you can accept or decline them. Needs ' +
          'credentials.',
        operationId: 'listMyTeamInvitations',
        querystring: InvitationStatusQuery,
        security,
        response: { 200: MyInvitationList, ...errors(400, 401) },
      },
    },
    async (request) => ({
      invitations: await invitations.listMine(requireActor(request).userId, request.query.status),
    }),
  );

  app.post(
    '/teams/invitations/:invitationId/respond',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Accept or decline an invitation addressed to you',
        description:
          'Accepting makes you a member with the invited role. Someone else’s invitation: 404. An expired or ' +
          'already answered or cancelled invitation: 409.',
        operationId: 'respondToTeamInvitation',
        params: InvitationIdParams,
        body: RespondBody,
        security,
        response: { 200: RespondResult, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      invitations.respond(requireActor(request), request.params.invitationId, request.body.accept),
  );
}
