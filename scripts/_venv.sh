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
stamp_now="$(cat pyproject.toml setup.py sw_core_ext/*.pyx sw_core_ext/*.pxd 2>/dev/null | .venv/bin/python -c 'import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())')"
stamp_file=.venv/.sandworld-install
if [ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp_now" ] || ! .venv/bin/python -c 'import sw_core_ext._store' >/dev/null 2>&1; then
  echo "scripts: installing the project into .venv (builds the Cython core; first run takes a minute)" >&2
  .venv/bin/python -m pip install --quiet --upgrade pip >&2
  .venv/bin/python -m pip install --quiet -e ".[dev]" >&2
  .venv/bin/python -c 'import sw_core_ext._store' || { echo "scripts: the Cython core did not build; see the pip output above" >&2; exit 1; }
  echo "$stamp_now" > "$stamp_file"
fi
