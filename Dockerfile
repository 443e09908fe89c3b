# platformd and platformctl in a small Debian image.
#   docker build -t platform .
#   docker compose up        (see docker-compose.yml: Kafka, PostgreSQL, platformd)

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/ ./cmd/platformd ./cmd/platformctl

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates tzdata ffmpeg \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /nonexistent --shell /usr/sbin/nologin platform
COPY --from=build /out/platformd /out/platformctl /usr/local/bin/
USER platform
EXPOSE 8080-8090
ENTRYPOINT ["/usr/local/bin/platformd"]
