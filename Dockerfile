# syntax=docker/dockerfile:1
#
# The Dinos site as one image: the UI is built with Node, embedded into the release
# binary by server/build.rs, and the binary runs alone on a slim Debian.
#
#   docker build -t lastwords .                      # QuickJS engine (the default)
#   docker build --build-arg ENGINE=v8 -t lastwords . # V8 (downloads librusty_v8)
#   docker run -p 8080:8080 -v lastwords-data:/data lastwords
#
# Configure with the environment variables of README.md, such as LASTWORDS_PUBLIC_URL
# (canonical URLs; the default names the listen address) or LASTWORDS_FIRESTORE_PROJECT.

# --- the UI: ui/dist (server bundle, hashed client assets, manifest) --------------------
FROM node:20-bookworm-slim AS ui
WORKDIR /src
# The lock file alone first, so dependencies stay cached while sources change. This
# image's npm 10 accepts the lock file; npm 11 refuses it (see scripts/setup), so keep
# the Node 20 image's own npm here.
COPY ui/package.json ui/package-lock.json ui/
RUN cd ui && npm ci --no-audit --no-fund
# The whole context, because ui/build.mjs also copies the art in assets/ (which may be
# absent, so it cannot be named in a COPY).
COPY . .
RUN cd ui && npm run build

# --- the host: target/release/lastwords with ui/dist embedded ---------------------------
FROM rust:1.95-bookworm AS host
# cmake builds WAMR inside the QuickJS engine; scripts/offline.cmake (read through
# .cargo/config.toml) points it at Debian's simde instead of fetching it. pkg-config
# and libssl-dev are for the Firestore client's TLS.
RUN apt-get update \
    && apt-get install -y --no-install-recommends cmake libsimde-dev pkg-config libssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY .cargo/ .cargo/
COPY scripts/offline.cmake scripts/
COPY server/ server/
COPY --from=ui /src/ui/dist/ ui/dist/
# quickjs: the default features; v8: V8 instead, as in scripts/test's type check. Both
# engines share the cached target folder (cargo keeps each feature set apart), so the
# binary is copied out of it right after its build.
ARG ENGINE=quickjs
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    set -eu; \
    case "$ENGINE" in \
      quickjs) engine_features="" ;; \
      v8) engine_features="--no-default-features --features v8" ;; \
      *) echo "ENGINE must be quickjs or v8, not '$ENGINE'" >&2; exit 2 ;; \
    esac; \
    cargo build --release --locked -p lastwords --bin lastwords $engine_features; \
    cp target/release/lastwords /usr/local/bin/lastwords

# --- the runtime -------------------------------------------------------------------------
FROM debian:bookworm-slim
# libssl3 and the CA roots for Firestore over TLS.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates libssl3 \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 lastwords \
    && useradd --system --uid 10001 --gid lastwords --home-dir /data --no-create-home \
       --shell /usr/sbin/nologin lastwords \
    && mkdir /data \
    && chown lastwords:lastwords /data
COPY --from=host /usr/local/bin/lastwords /usr/local/bin/lastwords
# The embedded store (phrases.json) lives in /data; it is created with sample phrases
# when the volume is empty.
ENV HOST=0.0.0.0 PORT=8080 LASTWORDS_DATA_DIR=/data
VOLUME /data
WORKDIR /data
EXPOSE 8080
# Numeric, so runtimes that require a non-root user can check it.
USER 10001:10001
# SIGTERM (docker stop) closes WebSockets with 1001 and finishes in-flight requests.
ENTRYPOINT ["/usr/local/bin/lastwords"]
CMD ["serve"]
