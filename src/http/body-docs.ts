// The JSON bodies of /api routes, documented on the route itself as TypeBox (JSON Schema) in the
// route's `detail`, where the route table and /openapi.json (and so /docs) read them. The services
// still check every body and answer 400 validation_failed in the API's error shape: a schema here
// says what is accepted, the service decides (tests/openapi checks the two agree).
import { t, type TSchema } from "elysia";

export const jsonBody = (schema: TSchema) => ({ detail: { requestBody: { required: true, content: { "application/json": { schema } } } } });

export const Uuid = t.String({ format: "uuid" });
export const DateTime = t.String({ format: "date-time", description: "ISO 8601; must be in the future" });
export const Role = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member"), t.Literal("viewer")]);
