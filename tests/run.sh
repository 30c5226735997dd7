#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what it needs, then runs pytest.
# Extra arguments go to pytest, e.g. `bash tests/run.sh -k metrics`.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
# The browser tests drive Debian's Chromium (never a downloaded browser build).
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
exec python3 -m pytest "$@"
