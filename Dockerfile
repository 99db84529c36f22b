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
# The same Node major as CI, and the same two steps: scripts/npm-install (which
# scripts/setup runs) and `npm run --silent build` in ui/ (as scripts/build and
# scripts/test run it). tests/ship/dockerfile.test.mjs holds them together.
FROM node:22-bookworm-slim AS ui
WORKDIR /src
# The lock file alone first, so dependencies stay cached while sources change.
COPY scripts/npm-install scripts/
COPY ui/package.json ui/package-lock.json ui/
RUN scripts/npm-install ui
# Then only what the UI build reads, so a change to the host does not rebuild the UI.
COPY ui/build.mjs ui/tsconfig.json ui/
COPY ui/src/ ui/src/
RUN cd ui && npm run --silent build

# --- the host: target/release/lastwords with ui/dist embedded ---------------------------
FROM rust:1.95-bookworm AS host
# cmake builds WAMR inside the QuickJS engine; scripts/offline.cmake (read through
# .cargo/config.toml) points it at Debian's simde instead of fetching it. The Firestore
# client's TLS is rustls, so no OpenSSL headers.
RUN apt-get update \
    && apt-get install -y --no-install-recommends cmake libsimde-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Cargo.toml Cargo.lock ./
COPY .cargo/ .cargo/
COPY scripts/offline.cmake scripts/
COPY server/ server/
COPY assets/ assets/
COPY --from=ui /src/ui/dist/ ui/dist/
# ENGINE is a cargo feature of the host: quickjs (the default) or v8, the type-checked
# alternative of scripts/test (cargo names any other value it does not know), with the
# Firestore store either way. Both engines share the cached target folder (cargo keeps
# each feature set apart), so the binary is copied out of it right after its build.
ARG ENGINE=quickjs
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p lastwords --bin lastwords --no-default-features --features "$ENGINE,firestore" \
    && cp target/release/lastwords /usr/local/bin/lastwords

# --- the runtime -------------------------------------------------------------------------
FROM debian:bookworm-slim AS runtime
# The CA roots for the Firestore client's token requests (rustls verifies them against
# the system's store; its gRPC channel carries Mozilla's roots built in).
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 lastwords \
    && useradd --system --uid 10001 --gid lastwords --home-dir /data --no-create-home \
       --shell /usr/sbin/nologin lastwords \
    && mkdir /data \
    && chown lastwords:lastwords /data
COPY --from=host /usr/local/bin/lastwords /usr/local/bin/lastwords
# The embedded store (phrases.sqlite3) lives in /data; `serve` creates it with sample
# phrases when the volume is empty, except in production (LASTWORDS_ENV=production), where
# `lastwords phrases init` makes it first: a volume lost or not mounted is then an error.
ENV HOST=0.0.0.0 PORT=8080 LASTWORDS_DATA_DIR=/data
# glibc gives each busy thread (the runtime's workers, the renderers) an arena of its own,
# up to eight per core, and keeps what they freed: under a long load the host held twice
# the memory it does with two (docs/benchmarks.md, "Memory over an hour of traffic").
ENV MALLOC_ARENA_MAX=2
VOLUME /data
WORKDIR /data
EXPOSE 8080
# Numeric, so runtimes that require a non-root user can check it.
USER 10001:10001
# The binary asks its own /healthz (no curl in the image), where the serving process was
# told to listen (its flags, else $PORT); exit 0 or 1.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
    CMD ["/usr/local/bin/lastwords", "healthcheck"]
# SIGTERM (docker stop) closes WebSockets with 1001 and finishes in-flight requests.
ENTRYPOINT ["/usr/local/bin/lastwords"]
CMD ["serve"]
