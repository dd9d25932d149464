import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { typed } from '../../core/http/typed.js';
import { requireActor, requireRole } from '../../core/auth/authenticate.js';
import { SECURED } from '../../core/http/openapi.js';
import {
  Id,
  LimitOffsetQuery,
  PageMeta,
  StringEnum,
  Timestamp,
  errors,
  named,
  ref,
} from '../../core/http/schemas.js';
import { ROLES } from '../../core/auth/roles.js';
import { PrivateProfile, USER_STATUSES } from '../users/users.schemas.js';
import type { AdminUsersService } from './admin-users.service.js';

const tags = ['admin'];

const AdminUserQuery = Type.Object({
  ...LimitOffsetQuery.properties,
  search: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Full-text search of username and display name (every word, the last one as a prefix; case and ' +
        'diacritics ignored; words typed joined, as in `user_42`, must stand next to each other in that order), ' +
        'or an email that starts with the search (case-insensitive). Order stays newest first',
    }),
  ),
  role: Type.Optional(StringEnum(ROLES)),
  status: Type.Optional(StringEnum(USER_STATUSES)),
});

const AdminUserPatchBody = Type.Object(
  {
    role: Type.Optional(StringEnum(ROLES, { description: 'Super admin only' })),
    status: Type.Optional(StringEnum(USER_STATUSES)),
    suspendedUntil: Type.Optional(Timestamp),
    trusted: Type.Optional(
      Type.Boolean({
        description:
          "Trusted creator (admin or super admin, any account but one's own): their submitted versions are " +
          'approved at once when every file is clean',
      }),
    ),
  },
  { additionalProperties: false },
);

/** What admins see of an account: the private profile and the trusted-creator flag. */
const AdminUser = named(
  'AdminUser',
  Type.Object({ ...PrivateProfile.properties, trusted: Type.Boolean({ description: 'Trusted creator' }) }),
);

export async function adminUsersRoutes(
  fastify: FastifyInstance,
  { adminUsers }: { adminUsers: AdminUsersService },
) {
  const app = typed(fastify);
  app.get(
    '/admin/users',
    {
      preHandler: requireRole('ADMIN'),
      schema: {
        tags,
        summary: 'List accounts (admin or super admin)',
        description:
          'Lists accounts with their role, status and trusted flag, for account administration. Admins ' +
          'and super admins only.',
        operationId: 'listUsersForAdmin',
        querystring: AdminUserQuery,
        security: SECURED,
        response: {
          200: Type.Object({
            users: Type.Array(ref(AdminUser)),
            total: Type.Integer(),
            meta: ref(PageMeta),
          }),
          ...errors(400, 401, 403),
        },
      },
    },
    async (request) => {
      const { limit = 20, offset = 0, search, role, status } = request.query;
      const { users, total } = await adminUsers.list(
        {
          ...(search !== undefined ? { search } : {}),
          ...(role ? { role } : {}),
          ...(status ? { status } : {}),
        },
        limit,
        offset,
      );
      return { users, total, meta: { total, limit, offset } };
    },
  );

  app.patch(
    '/admin/users/:userId',
    {
      preHandler: requireRole('ADMIN'),
      schema: {
        tags,
        summary: 'Change an account role (super admin), status or trusted flag (admin or super admin)',
        description:
          "Changes an account's status or trusted flag (admins and super admins) or its role (super " +
          'admins only).',
        operationId: 'updateUserForAdmin',
        params: Type.Object({ userId: Id }),
        body: AdminUserPatchBody,
        security: SECURED,
        response: { 200: ref(AdminUser), ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => adminUsers.update(requireActor(request), request.params.userId, request.body),
  );
}
