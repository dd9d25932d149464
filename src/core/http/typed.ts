import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';

/** The instance as route files use it: request types inferred from the TypeBox schemas. */
export const typed = (app: FastifyInstance) => app.withTypeProvider<TypeBoxTypeProvider>();
