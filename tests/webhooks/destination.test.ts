import { expect, test } from "bun:test";
import { checkDestinationUrl, checkResolvedHost, DestinationError, isIP, isPrivateAddress } from "../../src/webhooks/destination";

test.each([
  ["10.0.0.1", true], ["172.16.5.4", true], ["172.32.0.1", false], ["192.168.0.10", true], ["127.0.0.1", true], ["169.254.169.254", true],
  ["100.64.0.1", true], ["0.0.0.0", true], ["8.8.8.8", false], ["::1", true], ["fd00::1", true], ["fe80::1", true], ["::ffff:10.0.0.1", true],
  ["2606:4700:4700::1111", false],
] as const)("%s is private: %s", (ip, expected) => {
  expect(isIP(ip)).toBeGreaterThan(0);
  expect(isPrivateAddress(ip)).toBe(expected);
});

test("isIP tells addresses from host names", () => {
  expect(isIP("1.2.3.4")).toBe(4);
  expect(isIP("256.1.1.1")).toBe(0);
  expect(isIP("::1")).toBe(6);
  expect(isIP("example.com")).toBe(0);
  expect(isIP("1.2.3")).toBe(0);
});

test("a host that resolves to a private address is refused at delivery time, unless private destinations are allowed", async () => {
  const url = checkDestinationUrl("https://innocent.example.com/hook", false);
  const lookup = async () => [{ address: "10.1.2.3", family: 4 }] as never;
  await expect(checkResolvedHost(url, false, lookup)).rejects.toBeInstanceOf(DestinationError);
  await expect(checkResolvedHost(url, true, lookup)).resolves.toBeUndefined();
  const publicLookup = async () => [{ address: "93.184.216.34", family: 4 }] as never;
  await expect(checkResolvedHost(url, false, publicLookup)).resolves.toBeUndefined();
});
