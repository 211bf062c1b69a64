# Sourced by scripts/serve, scripts/sandworld and scripts/test: make sure .venv
# exists and holds an up-to-date install of this project (the Cython core
# built), then carry on. Reinstalls only when the packaging files or the Cython
# sources change, or when the caller needs extras not yet installed:
# SW_EXTRAS="" (serve: only what serving needs) or "dev" (test: the dev tools too).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
SW_EXTRAS="${SW_EXTRAS-dev}"
if [ ! -x .venv/bin/python ]; then
  echo "scripts: creating .venv with $($PY --version 2>&1)" >&2
  "$PY" -m venv .venv
fi
stamp_now="$(cat pyproject.toml clients/python/pyproject.toml setup.py scripts/_venv.sh sw_core_ext/*.pyx sw_core_ext/*.pxd 2>/dev/null | .venv/bin/python -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')"
stamp_file=.venv/.sandworld-install
stamp_have=""; extras_have=""
[ -f "$stamp_file" ] && read -r stamp_have extras_have < "$stamp_file"
if [ "$stamp_have" != "$stamp_now" ] || { [ -n "$SW_EXTRAS" ] && [ "$extras_have" != "$SW_EXTRAS" ]; } \
    || ! .venv/bin/python -c 'import sw_core_ext._store, sw_core_ext._calls' >/dev/null 2>&1; then
  extras="$SW_EXTRAS"
  [ "$stamp_have" = "$stamp_now" ] && [ -n "$extras_have" ] && extras="$extras_have"  # keep what is there
  spec="."; [ -n "$extras" ] && spec=".[$extras]"
  echo "scripts: installing $spec into .venv (builds the Cython core; the first run takes a few minutes)" >&2
  .venv/bin/python -m pip install --quiet --upgrade pip >&2
  # pip's own lines (Collecting…, Building…) are the progress of a first set-up.
  progress() { grep -E --line-buffered '^(Collecting|Building|Successfully|ERROR)' >&2 || true; }
  # The client first: the server distribution depends on it (`sandworld`), and
  # it is not taken from an index but from this tree.
  .venv/bin/python -m pip install --progress-bar off -e ./clients/python 2>&1 | progress
  .venv/bin/python -m pip install --progress-bar off -e "$spec" 2>&1 | progress
  # A .venv from before the split had the command in the server distribution,
  # whose upgrade just removed it: put the client's back.
  [ -x .venv/bin/sandworld ] || .venv/bin/python -m pip install --quiet --no-deps --force-reinstall -e ./clients/python >&2
  if [ "$extras" = dev ]; then
    # openenv-core's metadata pulls its web UI (gradio) and CLI; its client and
    # server need only what the dev extra lists, so it goes in without its deps.
    .venv/bin/python -m pip install --quiet --no-deps "openenv-core==0.3.0" >&2
    # verl imports torch, Ray and tensordict: tests/integrations/test_verl.py loads the files of the
    # release the client's verl extra pins (its schemas and agent loop) without them.
    .venv/bin/python -m pip install --quiet --no-deps "verl==0.9.1" >&2
  fi
  .venv/bin/python -c 'import sw_core_ext._store, sw_core_ext._calls' || { echo "scripts: the Cython core did not build; run .venv/bin/python -m pip install -e '$spec' to see why" >&2; exit 1; }
  echo "$stamp_now $extras" > "$stamp_file"
  echo "scripts: .venv is ready" >&2
fi
# The viewer's browser tests (tests/ui) drive Debian's chromium through Playwright's
# executable_path (never `playwright install`, which downloads a browser build of its own).
# The dev set-up installs it when it is missing and this is root; otherwise those tests skip,
# saying why.
if [ "$SW_EXTRAS" = dev ] && ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "scripts: installing Debian's chromium for the browser tests (apt-get update; apt-get install -y chromium)" >&2
    if apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >&2; then
      echo "scripts: chromium is installed ($(chromium --version 2>/dev/null || echo "version unknown"))" >&2
    else
      echo "scripts: chromium could not be installed; the browser tests (tests/ui) will skip" >&2
    fi
  else
    echo "scripts: chromium is not installed and this is not root with apt-get; the browser tests (tests/ui) will skip" >&2
    echo "scripts: (as root: apt-get update && apt-get install -y chromium)" >&2
  fi
fi
