-- Accounts in Supabase's shape (issue #30): users, sessions and refresh tokens move to the `auth`
-- schema, users' columns take GoTrue's names (encrypted_password holds the argon2id hash; the
-- metadata is raw_app_meta_data / raw_user_meta_data), and auth.identities holds each user's email
-- identity, kept by a trigger. A user inserted by anyone but the server's own sign-up (which places
-- its users itself and says so for its transaction) gets an organization they own, as the server's
-- sign-up gives one: named after user metadata's organization_name, or the e-mail's local part.
CREATE SCHEMA IF NOT EXISTS auth;
--> statement-breakpoint
ALTER TABLE users SET SCHEMA auth;
--> statement-breakpoint
ALTER TABLE sessions SET SCHEMA auth;
--> statement-breakpoint
ALTER TABLE refresh_tokens SET SCHEMA auth;
--> statement-breakpoint
ALTER TABLE auth.users RENAME COLUMN password_hash TO encrypted_password;
--> statement-breakpoint
ALTER TABLE auth.users RENAME COLUMN app_metadata TO raw_app_meta_data;
--> statement-breakpoint
ALTER TABLE auth.users RENAME COLUMN user_metadata TO raw_user_meta_data;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS auth.identities (
	id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
	provider_id text NOT NULL,
	user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
	identity_data jsonb NOT NULL,
	provider text NOT NULL,
	last_sign_in_at timestamptz,
	created_at timestamptz NOT NULL DEFAULT now(),
	updated_at timestamptz NOT NULL DEFAULT now(),
	email text GENERATED ALWAYS AS (lower(identity_data ->> 'email')) STORED,
	CONSTRAINT identities_provider_id_provider_unique UNIQUE (provider_id, provider)
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS identities_user_id_idx ON auth.identities (user_id);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION auth.aw_email_identity() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = auth, pg_temp AS $$
BEGIN
  INSERT INTO auth.identities (provider_id, user_id, identity_data, provider)
  VALUES (NEW.id::text, NEW.id, jsonb_build_object('sub', NEW.id::text, 'email', NEW.email, 'email_verified', NEW.email_confirmed_at IS NOT NULL), 'email')
  ON CONFLICT (provider_id, provider) DO UPDATE SET identity_data = excluded.identity_data, updated_at = now();
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER aw_email_identity AFTER INSERT OR UPDATE OF email, email_confirmed_at ON auth.users FOR EACH ROW EXECUTE FUNCTION auth.aw_email_identity();
--> statement-breakpoint
INSERT INTO auth.identities (provider_id, user_id, identity_data, provider)
SELECT u.id::text, u.id, jsonb_build_object('sub', u.id::text, 'email', u.email, 'email_verified', u.email_confirmed_at IS NOT NULL), 'email' FROM auth.users AS u
ON CONFLICT (provider_id, provider) DO NOTHING;
--> statement-breakpoint
-- The slug as the server makes it (src/platform/auth/service.ts: slugify, generatedSlug): the name
-- decomposed, accents dropped, lower-case, runs of anything else one dash; then ten random a-z0-9.
CREATE OR REPLACE FUNCTION auth.aw_organization_on_signup() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  org_name text := coalesce(nullif(btrim(NEW.raw_user_meta_data ->> 'organization_name'), ''), split_part(NEW.email, '@', 1) || '''s organization');
  base text;
  org uuid := gen_random_uuid();
  placed uuid;
BEGIN
  IF current_setting('answerwatch.signup', true) = 'placed' THEN RETURN NULL; END IF;
  base := left(coalesce(nullif(btrim(regexp_replace(lower(regexp_replace(normalize(org_name, NFKD), '[\u0300-\u036f]', '', 'g')), '[^a-z0-9]+', '-', 'g'), '-'), ''), 'org'), 48);
  base := coalesce(nullif(rtrim(left(base, 40), '-'), ''), 'org');
  FOR attempt IN 1..10 LOOP
    INSERT INTO organizations (id, name, slug)
    VALUES (org, org_name, base || '-' || (SELECT string_agg(substr('abcdefghijklmnopqrstuvwxyz0123456789', 1 + floor(random() * 36)::int, 1), '') FROM generate_series(1, 10)))
    ON CONFLICT (slug) DO NOTHING RETURNING id INTO placed;
    EXIT WHEN placed IS NOT NULL;
  END LOOP;
  IF placed IS NULL THEN RAISE EXCEPTION 'no free organization slug for %', base USING ERRCODE = 'unique_violation'; END IF;
  INSERT INTO organization_members (organization_id, user_id, role) VALUES (org, NEW.id, 'owner');
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER aw_organization_on_signup AFTER INSERT ON auth.users FOR EACH ROW EXECUTE FUNCTION auth.aw_organization_on_signup();
