# The Sandworld server: every world on port 8787.
#   docker build -t sandworld-runtime .
#   docker run --rm -p 8787:8787 sandworld-runtime
# It binds 0.0.0.0 inside the container: publish the port only where you
# trust the network, or put an authenticating proxy in front of it.
FROM python:3.11-slim AS build
# gcc builds the Cython state core; it stays in this stage.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY clients/python clients/python
COPY pyproject.toml setup.py README.md LICENSE ./
COPY sw_core_ext sw_core_ext
COPY sw_runtime sw_runtime
# One resolve: the server's dependency on `sandworld[eval]` is met by ./clients/python.
RUN pip wheel --no-cache-dir --wheel-dir /wheels ./clients/python .

FROM python:3.11-slim
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir --no-index --find-links /wheels sandworld-runtime && rm -rf /wheels
RUN useradd --create-home sandworld
USER sandworld
WORKDIR /home/sandworld
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8787/healthz')"
ENTRYPOINT ["sandworld", "serve", "--host", "0.0.0.0", "--port", "8787"]
