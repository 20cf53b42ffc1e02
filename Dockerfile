# syntax=docker/dockerfile:1
# The Rummy service: gunicorn serving service.wsgi:app.
# Build:  docker build -t rummy-service .
# Run:    docker run -p 8000:8000 -e STORE_URL=redis://redis:6379/0 rummy-service

ARG PYTHON_IMAGE=python:3.12-slim-bookworm

# ---- build: install the package and its runtime dependencies into a venv ----
FROM ${PYTHON_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONDONTWRITEBYTECODE=1
WORKDIR /src
RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
# Only what the wheel needs: no tests, benches or deploy files in the build context it sees.
COPY pyproject.toml README.md ./
COPY service ./service
RUN pip install --no-cache-dir . \
    && find /opt/venv -name '__pycache__' -prune -exec rm -rf {} +

# ---- runtime: the venv, the gunicorn config and an unprivileged user ----
FROM ${PYTHON_IMAGE} AS runtime
LABEL org.opencontainers.image.title="rummy-service" \
      org.opencontainers.image.description="The reference Rummy game service (HTTP API)" \
      org.opencontainers.image.licenses="MIT"
RUN groupadd --system --gid 10001 rummy \
    && useradd --system --uid 10001 --gid rummy --home-dir /app --no-create-home \
       --shell /usr/sbin/nologin rummy \
    && mkdir -p /app/deploy /tmp/prometheus \
    && chown rummy:rummy /tmp/prometheus
COPY --from=build /opt/venv /opt/venv
COPY deploy/gunicorn.conf.py /app/deploy/gunicorn.conf.py
WORKDIR /app
# PORT and WEB_CONCURRENCY are read by deploy/gunicorn.conf.py. Set STORE_URL
# (redis://…): without it games live in memory and gunicorn runs one worker.
# PROMETHEUS_MULTIPROC_DIR lets /metrics sum every worker's counters, served on
# METRICS_PORT only (keep that port off the public network).
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PORT=8000 \
    WEB_CONCURRENCY=2 \
    METRICS_PORT=9100 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/prometheus
USER 10001:10001
EXPOSE 8000 9100
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('PORT', '8000'), timeout=2)"]
ENTRYPOINT ["gunicorn", "--config", "/app/deploy/gunicorn.conf.py"]
CMD ["service.wsgi:app"]
