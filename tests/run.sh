#!/usr/bin/env bash
# The whole test suite, from a fresh machine: installs what it needs, then runs pytest.
# Extra arguments go to pytest, e.g. `bash tests/run.sh -k metrics`.
# Works as root without a virtualenv (CI) and inside an activated virtualenv: `python3` is the venv's there.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
# The browser tests drive Debian's Chromium (never a downloaded browser build). apt runs only when it is missing,
# and waits up to 10 minutes for another apt or dpkg (an unattended upgrade) to let go of dpkg's lock.
if [ ! -e /usr/bin/chromium ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq chromium >/dev/null
fi
exec python3 -m pytest "$@"
