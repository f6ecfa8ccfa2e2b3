// How numbers read: shared with the server's mail and reports (src/common/format.ts); dates here are the browser's.
export { pct, num, int, points, intervalTitle, intervalText, changeText, VERDICT_TEXT } from "../../common/format";

export const dateTime = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" }) : "—");
export const isoDay = (d: Date) => d.toISOString().slice(0, 10);
