// A webhook receiver on 127.0.0.1 that verifies every delivery with the standardwebhooks package.
import { Webhook } from "standardwebhooks";

export function receiver(answer: (n: number) => number = () => 200) {
  const received: { at: number; id: string; body: any; verified: boolean }[] = [];
  let secret = "";
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const text = await request.text();
      const headers = Object.fromEntries(request.headers);
      let verified = false;
      try {
        new Webhook(secret).verify(text, headers);
        verified = true;
      } catch {}
      received.push({ at: Date.now(), id: headers["webhook-id"]!, body: JSON.parse(text), verified });
      return new Response(null, { status: answer(received.length) });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received,
    setSecret: (s: string) => (secret = s),
    stop: () => server.stop(true),
  };
}

