# The toolscope image: a released binary on a small base; nothing is
# compiled here. The build context holds each platform's binary at
# $TARGETPLATFORM/toolscope (linux/amd64/toolscope), as goreleaser's
# dockers_v2 lays it out (.goreleaser.yaml); scripts/image-test.sh and
# docs/install.md#building-the-image-yourself lay one out by hand.
#
# Where no registry is reachable, build it with --build-arg BASE=scratch:
# the same image without distroless's CA certificates (https to a model
# server or an MCP server then needs the host's, mounted at
# /etc/ssl/certs/ca-certificates.crt), time zones and /etc/passwd.
ARG BASE=gcr.io/distroless/static-debian12:nonroot

# Empty: copying its root is how /data becomes the user's, since neither
# base has a shell to mkdir and chown with.
FROM scratch AS empty

FROM ${BASE}
ARG TARGETPLATFORM
COPY ${TARGETPLATFORM}/toolscope /usr/local/bin/toolscope
COPY --from=empty --chown=65532:65532 / /data/

# distroless's nonroot user; on scratch, a uid with no name.
USER 65532:65532
# Serving beyond loopback, toolscope asks for a token and prints the links
# that carry it: `docker logs` shows them. The health check reads
# TOOLSCOPE_ADDR too, so change the address there, not with --addr.
ENV TOOLSCOPE_ADDR=0.0.0.0:8000 \
    TOOLSCOPE_DATA_DIR=/data \
    XDG_CACHE_HOME=/data/cache
EXPOSE 8000
# The history of runs, and the cache of tool embeddings.
VOLUME /data
# Without a token, toolscope's own refusal shows it serving (see
# `toolscope health -h`); no curl needed.
HEALTHCHECK --interval=30s --timeout=15s --start-period=5s --retries=3 \
    CMD ["toolscope", "health"]

ENTRYPOINT ["toolscope"]
CMD ["serve"]
