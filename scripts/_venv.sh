# Sourced by scripts/serve and scripts/test: make sure .venv exists and holds
# an up-to-date install of this project (the Cython core built), then carry on.
# Reinstalls only when the packaging files or the Cython sources change.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
if [ ! -x .venv/bin/python ]; then
  echo "scripts: creating .venv with $($PY --version 2>&1)" >&2
  "$PY" -m venv .venv
fi
stamp_now="$(cat pyproject.toml clients/python/pyproject.toml setup.py scripts/_venv.sh sw_core_ext/*.pyx sw_core_ext/*.pxd 2>/dev/null | .venv/bin/python -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')"
stamp_file=.venv/.sandworld-install
if [ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp_now" ] || ! .venv/bin/python -c 'import sw_core_ext._store' >/dev/null 2>&1; then
  echo "scripts: installing the project into .venv (builds the Cython core; first run takes a minute)" >&2
  .venv/bin/python -m pip install --quiet --upgrade pip >&2
  # The client first: the server distribution depends on it (`sandworld`), and
  # it is not taken from an index but from this tree.
  .venv/bin/python -m pip install --quiet -e ./clients/python >&2
  .venv/bin/python -m pip install --quiet -e ".[dev]" >&2
  # A .venv from before the split had the command in the server distribution,
  # whose upgrade just removed it: put the client's back.
  [ -x .venv/bin/sandworld ] || .venv/bin/python -m pip install --quiet --no-deps --force-reinstall -e ./clients/python >&2
  # openenv-core's metadata pulls its web UI (gradio) and CLI; its client and
  # server need only what the dev extra lists, so it goes in without its deps.
  .venv/bin/python -m pip install --quiet --no-deps "openenv-core==0.3.0" >&2
  .venv/bin/python -c 'import sw_core_ext._store' || { echo "scripts: the Cython core did not build; see the pip output above" >&2; exit 1; }
  echo "$stamp_now" > "$stamp_file"
fi
