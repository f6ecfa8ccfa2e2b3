// backends: sqlite, postgres
import { expect, test } from "bun:test";
import { testApp } from "../helpers/app";
import { appDb, countOf } from "../helpers/server-db";

test("an empty array, or a body that is not an object, inserts nothing: 201 [] (never a 5xx)", async () => {
  const t = await testApp();
  const post = (body: string, key = t.secrets.serviceRoleKey) =>
    t.request("/rest/v1/brands", {
      method: "POST",
      headers: { apikey: key, authorization: `Bearer ${key}`, "content-type": "application/json", prefer: "return=representation" },
      body,
    });
  for (const body of ["[]", "null", '"x"', "42"]) {
    const res = await post(body);
    expect({ body, status: res.status }).toEqual({ body, status: 201 });
    expect(await res.json()).toEqual([]);
  }
  // As with Postgres' row-level security, zero rows break no policy; a real row from anon does.
  expect((await post("[]", t.secrets.anonKey)).status).toBe(201);
  expect((await post('{"organization_id":"00000000-0000-4000-8000-000000000000","name":"A","slug":"a"}', t.secrets.anonKey)).status).toBe(401);
  const db = await appDb(t);
  expect(await countOf(db, "SELECT count(*) AS n FROM brands")).toBe(0);
  await db.close();
});
