// The baseline of bench/scale: a bare Bun.serve in its own process answering every request with the
// bytes of BODY_FILE (the response answerwatch gave), with the same content-type.
export {};
const body = await Bun.file(Bun.env.BODY_FILE!).bytes();
const type = Bun.env.CONTENT_TYPE ?? "application/json";
Bun.serve({ port: Number(Bun.env.PORT), hostname: "127.0.0.1", fetch: () => new Response(body, { headers: { "content-type": type } }) });
