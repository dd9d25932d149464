import { Type } from 'typebox';
import { Timestamp, ref } from '../../core/http/schemas.js';
import { PrivateProfile, Username } from '../users/users.schemas.js';

export const Password = Type.String({ minLength: 8, maxLength: 256, description: 'At least 8 characters' });
export const Email = Type.String({ format: 'email', maxLength: 254 });

export const RegisterBody = Type.Object(
  { username: Username, email: Email, password: Password },
  { additionalProperties: false },
);

export const LoginBody = Type.Object(
  {
    login: Type.String({ minLength: 1, maxLength: 254, description: 'Username or email' }),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

export const RegisterResponse = Type.Object({ user: ref(PrivateProfile) });

export const LoginResponse = Type.Object({
  token: Type.String({ description: 'Bearer token (ms_…); send as Authorization: Bearer <token>' }),
  expiresAt: Timestamp,
  user: ref(PrivateProfile),
});
