# The sweeper's image: trainc on a pinned slim Python, running as a non-root user.
#
#   docker build -t ghcr.io/example/trainc:0.1.0 .
#
# Both stages use one base, pinned to an exact patch release; bump it deliberately (or
# pin a digest, python:3.11.13-slim-bookworm@sha256:...), as for any dependency.
ARG PYTHON_IMAGE=python:3.11.13-slim-bookworm

# Build: install trainc and its dependencies under /install. The build backend
# (hatchling) lives in pip's temporary build environment and never leaves this stage.
FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY trainc/ trainc/
COPY schemas/ schemas/
COPY policies/ policies/
RUN pip install --no-cache-dir --prefix=/install .

# Runtime: the base image plus the installed packages, nothing else. Modules are
# byte-compiled at install time, since the CronJob mounts the root filesystem read-only.
FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
COPY --from=build /install /usr/local
# The UID the CronJob runs as (runAsUser: 65532); numeric, so the kubelet can check
# runAsNonRoot without a passwd entry.
USER 65532:65532
ENTRYPOINT ["trainc"]
CMD ["--help"]
