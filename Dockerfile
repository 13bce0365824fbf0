# chronos as a container image: a static binary on an empty base, run as a non-root
# user. With a registry:   podman build --format docker -t chronos .   (or docker build -t chronos .;
#                          podman's default OCI format has no HEALTHCHECK)
# Without one:             make image   (deploy/Dockerfile.local, from `make build`)
#
# Run it (SQLite on the /data volume; the wake URL and secret are required):
#   podman run -p 8080:8080 -v chronos-data:/data \
#     -e CHRONOS_WAKE_URL=https://app.example/chronos -e CHRONOS_WAKE_SECRET=... chronos
# Make the first token on the same volume:
#   podman run --rm -v chronos-data:/data chronos token create --owner alice

FROM golang:1.26 AS build
# The toolchain go.mod names, fetched (checksum-verified) by the go command: the image
# sets GOTOOLCHAIN=local, which would build with its own older Go and ignore go.mod's
# toolchain line. deploy/toolchain_test.go keeps this, go.mod and the Makefile agreeing.
ENV GOTOOLCHAIN=go1.27.3
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# CGO_ENABLED=0: a static binary (modernc.org/sqlite is pure Go), so it runs on scratch.
RUN CGO_ENABLED=0 go build -trimpath -o /out/chronos ./cmd/chronos && mkdir -p /out/data

FROM scratch
# Roots for https:// wake URLs; zone data is embedded in the binary (time/tzdata).
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/chronos /chronos
COPY --from=build --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
ENV CHRONOS_LISTEN=0.0.0.0:8080 \
    CHRONOS_STORE=sqlite:///data/chronos.db \
    CHRONOS_LOG_FORMAT=json
EXPOSE 8080
VOLUME /data
# No shell or curl in scratch: the binary asks its own /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s CMD ["/chronos", "healthcheck", "--url", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/chronos"]
CMD ["serve"]
