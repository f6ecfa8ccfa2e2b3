// Wire shapes of GoTrue (Supabase Auth) that supabase-js reads, built from our rows.
import type { UserRecord } from "./store";

type UserRow = UserRecord;

export function userJson(row: UserRow) {
  const appMetadata = { provider: "email", providers: ["email"], ...(row.appMetadata as object) };
  const userMetadata = row.userMetadata as Record<string, unknown>;
  return {
    id: row.id,
    aud: "authenticated",
    role: row.role,
    email: row.email,
    email_confirmed_at: row.emailConfirmedAt,
    phone: "",
    confirmed_at: row.emailConfirmedAt,
    last_sign_in_at: row.lastSignInAt,
    app_metadata: appMetadata,
    user_metadata: userMetadata,
    identities: [
      {
        identity_id: row.id,
        id: row.id,
        user_id: row.id,
        identity_data: { email: row.email, email_verified: row.emailConfirmedAt !== null, phone_verified: false, sub: row.id },
        provider: "email",
        last_sign_in_at: row.lastSignInAt,
        created_at: row.createdAt,
        updated_at: row.updatedAt,
        email: row.email,
      },
    ],
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    is_anonymous: false,
  };
}

export type UserJson = ReturnType<typeof userJson>;

export interface SessionJson {
  access_token: string;
  token_type: "bearer";
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: UserJson;
}
