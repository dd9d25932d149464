import { v7 } from 'uuid';

/** Time-ordered identifiers generated in the application (DESIGN §5). */
export const newId = (): string => v7();
