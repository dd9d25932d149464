// Server keys and heartbeats through the HTTP API.
import { expect } from 'vitest';
import type { App } from '../../../src/app.js';
import type { TestUser } from '../../helpers/factories.js';

export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  createdAt: string;
}

export async function createKey(
  app: App,
  owner: TestUser,
  serverId: string,
  name = 'lobby',
): Promise<CreatedKey> {
  const response = await app.inject({
    method: 'POST',
    url: `/servers/${serverId}/keys`,
    headers: owner.headers,
    payload: { name },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as CreatedKey;
}

export function sendHeartbeat(
  app: App,
  key: string | undefined,
  payload: Record<string, unknown> = { onlinePlayers: 3, maxPlayers: 20 },
  headers: Record<string, string> = {},
) {
  return app.inject({
    method: 'POST',
    url: '/servers/heartbeat',
    headers: { ...(key === undefined ? {} : { 'x-server-key': key }), ...headers },
    payload,
  });
}
