import { expect, test } from "bun:test";
import ipaddr from "ipaddr.js";
import {
  checkDestination,
  checkDestinationUrl,
  DestinationError,
  embeddedIPv4,
  isPublicAddress,
  pinnedRequest,
  refusalReason,
  resolveDestination,
  type Resolver,
} from "../../src/webhooks/destination";

test.each([
  ["10.0.0.1", false], ["172.16.5.4", false], ["172.32.0.1", true], ["192.168.0.10", false], ["127.0.0.1", false], ["169.254.169.254", false],
  ["100.64.0.1", false], ["0.0.0.0", false], ["8.8.8.8", true], ["::1", false], ["fd00::1", false], ["fe80::1", false], ["::ffff:10.0.0.1", false],
  ["::ffff:8.8.8.8", true], ["2606:4700:4700::1111", true], ["192.0.0.192", false], ["192.31.196.1", false], ["192.175.48.1", false],
  ["::127.0.0.1", false], ["fec0::1", false], ["5f00::1", false], ["3fff::1", false], ["2001:4:112::1", false], ["2620:4f:8000::1", false],
] as const)("%s is public: %s", (ip, expected) => {
  expect(isPublicAddress(ip)).toBe(expected);
  expect(refusalReason(ip) === null).toBe(expected);
});

test("a string that is no address, or an address with a zone, is refused, not treated as public", () => {
  expect(refusalReason("example.com")).toContain("not an IP address");
  expect(isPublicAddress("1.2.3")).toBe(false);
  expect(isPublicAddress("010.8.8.8")).toBe(false);
  expect(isPublicAddress("2606:4700:4700::1111%eth0")).toBe(false);
});

test("a pinned request never falls back to the name when the address does not fit in a URL", () => {
  expect(() => pinnedRequest(new URL("https://public.example.com/"), "2606:4700:4700::1111%eth0")).toThrow(DestinationError);
});

test(":: and ::1 are named as themselves, ::a.b.c.d as the IPv4 it carries", () => {
  expect(refusalReason("::1")).not.toContain("carrying");
  expect(refusalReason("::")).not.toContain("carrying");
  expect(refusalReason("::a00:1")).toContain("carrying 10.0.0.1");
});

test.each([
  ["::ffff:0:7f00:1", "127.0.0.1"], // IPv4-translated
  ["::a9fe:a9fe", "169.254.169.254"], // IPv4-compatible
  ["64:ff9b::a00:1", "10.0.0.1"], // NAT64 well-known prefix
  ["64:ff9b:1:7f00:0:100::", "127.0.0.1"], // NAT64 local-use /48: bits 64-71 are skipped
  ["2002:c0a8:101::", "192.168.1.1"], // 6to4
  ["2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1"], // Teredo client, stored inverted
] as const)("%s carries %s", (ip, inner) => {
  expect(embeddedIPv4(ipaddr.IPv6.parse(ip))?.toString()).toBe(inner);
  expect(refusalReason(ip)).toContain(`carrying ${inner}`);
});

test("a host that resolves to a private address is refused at delivery time, unless private destinations are allowed", async () => {
  const url = checkDestinationUrl("https://innocent.example.com/hook", false);
  const privateLookup: Resolver = async () => ["10.1.2.3"];
  await expect(resolveDestination(url, { allowPrivate: false, resolve: privateLookup })).rejects.toBeInstanceOf(DestinationError);
  expect(await resolveDestination(url, { allowPrivate: true, resolve: privateLookup })).toEqual({ url, addresses: ["10.1.2.3"] });
  const publicLookup: Resolver = async () => ["93.184.216.34"];
  expect((await resolveDestination(url, { allowPrivate: false, resolve: publicLookup })).addresses).toEqual(["93.184.216.34"]);
});

test("one private answer among public ones is enough to refuse", async () => {
  const url = checkDestinationUrl("https://mixed.example.com/", false);
  const mixed: Resolver = async () => ["93.184.216.34", "::ffff:127.0.0.1"];
  await expect(resolveDestination(url, { allowPrivate: false, resolve: mixed })).rejects.toThrow("mixed.example.com resolves to an address that is not globally reachable; set WEBHOOK_ALLOW_PRIVATE=true to allow private destinations");
  // The server's DNS answer is not told to whoever asked.
  await expect(resolveDestination(url, { allowPrivate: false, resolve: mixed })).rejects.not.toThrow(/127\.0\.0\.1/);
});

test("a literal address is never looked up; a resolver failure is a plain (retryable) error", async () => {
  const never: Resolver = async () => {
    throw new Error("must not be called");
  };
  const literal = checkDestinationUrl("http://8.8.8.8:8080/x", false);
  expect((await resolveDestination(literal, { allowPrivate: false, resolve: never })).addresses).toEqual(["8.8.8.8"]);
  const named = checkDestinationUrl("http://down.example.com/", false);
  const error = await resolveDestination(named, { allowPrivate: false, resolve: never }).catch((e) => e);
  expect(error).toBeInstanceOf(Error);
  expect(error).not.toBeInstanceOf(DestinationError);
});

test("creation resolves names only when given a resolver, and accepts names that do not resolve yet", async () => {
  const toLoopback: Resolver = async () => ["127.0.0.1"];
  await expect(checkDestination("https://sneaky.example.com/", { allowPrivate: false, resolve: toLoopback })).rejects.toBeInstanceOf(DestinationError);
  await expect(checkDestination("https://sneaky.example.com/", { allowPrivate: false })).resolves.toBeInstanceOf(URL);
  await expect(checkDestination("https://sneaky.example.com/", { allowPrivate: true, resolve: toLoopback })).resolves.toBeInstanceOf(URL);
  const failing: Resolver = async () => {
    throw new Error("ENOTFOUND");
  };
  await expect(checkDestination("https://new.example.com/", { allowPrivate: false, resolve: failing })).resolves.toBeInstanceOf(URL);
});

test("all answers are pinned, normalized and deduplicated; non-canonical answers are dropped", async () => {
  const url = checkDestinationUrl("http://multi.example.com/", true);
  const resolve: Resolver = async () => ["::ffff:10.0.0.1", "10.0.0.1", "fd00::1", "1.2.3"];
  expect((await resolveDestination(url, { allowPrivate: true, resolve })).addresses).toEqual(["10.0.0.1", "fd00::1"]);
  await expect(resolveDestination(url, { allowPrivate: true, resolve: async () => [] })).rejects.toThrow(/no address/);
});

test("a pinned request goes to the checked address with the original Host and TLS server name", () => {
  const https = pinnedRequest(new URL("https://hooks.example.com:8443/a?b=1"), "93.184.216.34");
  expect(https.url.href).toBe("https://93.184.216.34:8443/a?b=1");
  expect(https.host).toBe("hooks.example.com:8443");
  expect(https.tls).toEqual({ serverName: "hooks.example.com" });
  const v6 = pinnedRequest(new URL("http://hooks.example.com/"), "2606:4700:4700::1111");
  expect(v6.url.href).toBe("http://[2606:4700:4700::1111]/");
  expect(v6.host).toBe("hooks.example.com");
  expect(v6.tls).toBeUndefined();
  // An IP literal has no name to present: no SNI override.
  expect(pinnedRequest(new URL("https://8.8.8.8/"), "8.8.8.8").tls).toBeUndefined();
});

test("names that are private by themselves are refused without DNS; a trailing dot changes nothing", () => {
  for (const url of ["http://localhost./", "http://api.localhost/", "http://metadata.google.internal./", "http://x.internal/"])
    expect(() => checkDestinationUrl(url, false)).toThrow(DestinationError);
});
