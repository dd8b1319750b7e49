# UNTESTED: this recipe cannot be built on the project's build machine (no container runtime).
# What guards the runtime dependencies is Scripts/test-clean-root, which installs the same .deb
# into a fresh Debian 12 root and wraps the sample app there.
#
#   docker build -t ipawrap .
#   docker run --rm -v "$PWD:/work" -w /work ipawrap check App.ipa --json
#
# Stage 1: the Swift image (Debian 12) builds the .deb with Scripts/release.
FROM swift:6.2-bookworm AS build
WORKDIR /src
COPY . .
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends git \
    && ./Scripts/release

# Stage 2: a slim Debian 12 runs it; apt installs the .deb's Depends (libzip4, libxml2, zlib1g, libdeflate0, libstdc++6...).
FROM debian:12-slim
COPY --from=build /src/.build/dist/*.deb /tmp/
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/ipawrap_*.deb \
    && rm -rf /var/lib/apt/lists/* /tmp/ipawrap_*.deb
ENTRYPOINT ["ipawrap"]
CMD ["--help"]
