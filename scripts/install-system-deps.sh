#!/usr/bin/env bash
# Debian packages the test suite uses: chromium (headless browser tests of the pixel), poppler-utils
# (the client report's PDF turned into pages to look at: pdfinfo, pdftoppm, pdftotext), curl, and
# postgresql (the tests start a throwaway cluster from its binaries: tests/helpers/postgres.ts).
# Installed only when missing; needs root or sudo, as on the CI machines.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || missing+=(poppler-utils)
command -v curl >/dev/null 2>&1 || missing+=(curl)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
