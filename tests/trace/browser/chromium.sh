#!/bin/sh
# Debian's chromium for the trace page's browser test (tests/trace/test_view_page.py), installed
# by `make test` when /usr/bin/chromium is missing (CI's machine is fresh; it runs as root).
# Playwright drives it as it is: no browser is downloaded from anywhere but Debian's archive.
[ -x /usr/bin/chromium ] && exit 0
say() { echo "make test: the trace page's browser test needs Debian's chromium at /usr/bin/chromium: $1 (apt-get install chromium)" >&2; exit 1; }
[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 || say "install it as root"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q --no-install-recommends chromium >/dev/null 2>&1; } \
    || say "apt-get could not install it"
[ -x /usr/bin/chromium ] || say "apt-get did not install it"
