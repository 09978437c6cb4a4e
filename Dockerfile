# interop: the web service (`interop serve`) and the queue worker (`interop worker`) in one image.
# Build: docker build -t interop .      Run everything: docker compose up (compose.yaml, docs/service.md).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    INTEROP_DATA_DIR=/data

WORKDIR /src
# mappings/ and alembic/ are copied into the wheel by setup.py, so a plain install carries them.
COPY pyproject.toml setup.py README.md ./
COPY interop ./interop
COPY mappings ./mappings
COPY alembic ./alembic
# [all]: the server, the queue and PostgreSQL extras (a converter-only install needs none of them).
RUN pip install "/src[all]" && rm -rf /src

# Never run as root; /data holds the catalog's assets, uploads and outputs (a volume in compose.yaml).
RUN useradd --create-home --uid 10001 interop && mkdir -p /data && chown interop /data
USER interop
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080

# 0.0.0.0 inside the container needs a token (INTEROP_TOKEN): `interop serve` refuses to start without one.
CMD ["interop", "serve", "--host", "0.0.0.0", "--port", "8080", "--proxy-headers", "--forwarded-allow-ips", "*"]
