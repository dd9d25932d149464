import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';

/** Asserts the one error shape of DESIGN §6 and returns the body. */
export function expectError(response: LightMyRequestResponse, status: number, code?: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as {
    statusCode: number;
    error: string;
    message: string;
    code: string;
    details?: unknown;
  };
  expect(body.statusCode).toBe(status);
  expect(typeof body.error).toBe('string');
  expect(typeof body.message).toBe('string');
  expect(typeof body.code).toBe('string');
  if (code !== undefined) expect(body.code).toBe(code);
  return body;
}

/** A multipart body with one file and optional text fields, built with the platform's FormData. */
export async function multipart(
  fileField: string,
  file: { data: Buffer; name: string; type?: string } | undefined,
  fields: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  if (file !== undefined) {
    form.append(
      fileField,
      new Blob([file.data], { type: file.type ?? 'application/octet-stream' }),
      file.name,
    );
  }
  const encoded = new Response(form);
  return {
    payload: Buffer.from(await encoded.arrayBuffer()),
    headers: { 'content-type': encoded.headers.get('content-type')! },
  };
}
