// The slice of the OpenAPI document the per-module documentation tests read.
import { expect } from 'vitest';
import type { App } from '../../src/app.js';

export interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  security?: Array<Record<string, unknown>>;
  responses?: Record<string, unknown>;
}

export interface OpenApiDocument {
  tags: Array<{ name: string }>;
  paths: Record<string, Record<string, Operation>>;
}

export async function loadOpenApi(app: App): Promise<OpenApiDocument> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json() as OpenApiDocument;
}
