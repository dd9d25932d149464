import { v7 } from 'uuid';

/** Time-ordered identifiers generated in the application (DESIGN §5). */
export const newId = (): string => v7();

/** The smallest UUIDv7 of a millisecond: ids below it were generated before that moment. */
export function uuidV7Floor(epochMs: number): string {
  const hex = Math.max(0, Math.floor(epochMs)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}
