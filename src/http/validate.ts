// Input checks shared by the /api routes, each failing with a 400 that names the field.
import { AppError } from "./errors";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function requireUuid(value: unknown, field: string): string {
  if (typeof value !== "string" || !UUID.test(value)) throw new AppError(400, "invalid_id", `${field} must be a UUID`);
  return value.toLowerCase();
}
