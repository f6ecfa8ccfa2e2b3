-- Answers and their JSON companions: SQLite stores them zstd-packed (src/db/text-codec.ts, aw_text);
-- Postgres stores them plain and TOAST compresses them, with lz4 (faster than the default pglz at a
-- similar ratio for text). A server built without lz4 rejects the method (0A000): it then keeps pglz.
-- Only values past the TOAST threshold (~2 kB) are compressed; SET COMPRESSION applies to new values.
DO $$
BEGIN
  ALTER TABLE "public"."prompt_results"
    ALTER COLUMN "response" SET COMPRESSION lz4,
    ALTER COLUMN "citations" SET COMPRESSION lz4,
    ALTER COLUMN "sources" SET COMPRESSION lz4,
    ALTER COLUMN "details" SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lz4 is not available in this server: prompt_results keeps the default TOAST compression';
END
$$;
