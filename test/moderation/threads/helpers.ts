// Moderation thread fixtures: the thread routes of a resource or a server, read and posted through the real app.
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import type { TestUser } from '../../helpers/factories.js';

export interface MessageBody {
  id: string;
  author: { id: string; username: string; role: string } | null;
  body: string;
  versionId: string | null;
  internal: boolean;
  automatic: boolean;
  createdAt: string;
}

export interface ThreadBody {
  messages: MessageBody[];
  total: number;
  meta: { total: number; limit: number; offset: number };
}

export type ThreadOf = { kind: 'resources' | 'servers'; id: string };

export const threadUrl = (of: ThreadOf) => `/${of.kind}/${of.id}/moderation/thread`;

export function getThread(app: App, of: ThreadOf, as: TestUser | null, query = '') {
  return app.inject({ method: 'GET', url: `${threadUrl(of)}${query}`, headers: as?.headers ?? {} });
}

export async function readThread(app: App, of: ThreadOf, as: TestUser, query = ''): Promise<ThreadBody> {
  const response = await getThread(app, of, as, query);
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as ThreadBody;
}

export function postMessage(app: App, of: ThreadOf, as: TestUser | null, payload: Record<string, unknown>) {
  return app.inject({
    method: 'POST',
    url: `${threadUrl(of)}/messages`,
    headers: as?.headers ?? {},
    payload,
  });
}

export async function post(
  app: App,
  of: ThreadOf,
  as: TestUser,
  payload: Record<string, unknown>,
): Promise<MessageBody> {
  const response = await postMessage(app, of, as, payload);
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as MessageBody;
}
