// The parser ships no types: it returns metric families ({name, help, type, metrics}).
declare module "parse-prometheus-text-format" {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
