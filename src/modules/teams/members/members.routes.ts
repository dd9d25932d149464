import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../../core/http/typed.js';
import { requireActor, requireUser } from '../../../core/auth/authenticate.js';
import { SECURED } from '../../../core/http/openapi.js';
import { Id, Message, errors, ref } from '../../../core/http/schemas.js';
import { TeamIdParams, TeamMember, TeamRoleName } from '../teams.schemas.js';
import type { MembersService } from './members.service.js';

const tags = ['teams'];
const security = SECURED;

const MemberParams = Type.Object({
  id: Id,
  memberId: Type.String({ minLength: 1, maxLength: 64, description: "The member's user id" }),
});
const ChangeRoleBody = Type.Object({ role: TeamRoleName }, { additionalProperties: false });

export async function teamMembersRoutes(
  fastify: FastifyInstance,
  { members }: { members: MembersService },
): Promise<void> {
  const app = typed(fastify);

  app.patch(
    '/teams/:id/members/:memberId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: "Change a member's role (owner or admin)",
        description:
          'Only the owner may make someone OWNER: ownership is handed over and the previous owner becomes ADMIN. ' +
          "The owner's own role cannot be changed directly (409 OWNER_MUST_TRANSFER). An admin manages MEMBER and " +
          'MODERATOR only, may assign only those roles and may step down themselves (403 otherwise). A user who ' +
          'is not a member: 404.',
        operationId: 'updateTeamMemberRole',
        params: MemberParams,
        body: ChangeRoleBody,
        security,
        response: { 200: ref(TeamMember), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      members.changeRole(
        requireActor(request),
        request.params.id,
        request.params.memberId,
        request.body.role,
      ),
  );

  app.delete(
    '/teams/:id/members/:memberId',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Remove a member (owner or admin; an admin removes MEMBER and MODERATOR only)',
        description: 'The owner cannot be removed (409 OWNER_MUST_TRANSFER).',
        operationId: 'removeTeamMember',
        params: MemberParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      await members.remove(requireActor(request), request.params.id, request.params.memberId);
      return { message: 'Member removed from the team' };
    },
  );

  app.delete(
    '/teams/:id/leave',
    {
      preHandler: requireUser,
      schema: {
        tags,
        summary: 'Leave a team you belong to',
        description: 'The owner cannot leave before handing ownership over (409 OWNER_MUST_TRANSFER).',
        operationId: 'leaveTeam',
        params: TeamIdParams,
        security,
        response: { 200: ref(Message), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      await members.leave(requireActor(request), request.params.id);
      return { message: 'You left the team' };
    },
  );
}
