CREATE TABLE "digest_addresses" (
	"user_id" uuid NOT NULL,
	"email" text NOT NULL,
	"requested_at" timestamp with time zone,
	"confirmed_at" timestamp with time zone,
	CONSTRAINT "digest_addresses_user_id_email_pk" PRIMARY KEY("user_id","email")
);
--> statement-breakpoint
ALTER TABLE "digest_addresses" ADD CONSTRAINT "digest_addresses_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "auth"."users"("id") ON DELETE cascade ON UPDATE no action;