# Multi-stage: build the single binary with Bun from npm, run it as a non-root user.
#   docker build -t answerwatch .
#   docker run -p 3000:3000 -v answerwatch:/data -e PUBLIC_URL=https://answerwatch.example.com answerwatch
# PUBLIC_URL: where browsers and the tracked site reach the server (the pixel snippet uses it).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home /data answerwatch \
 && mkdir -p /data && chown answerwatch /data \
 && apt-get update && apt-get install -y --no-install-recommends ca-certificates curl && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/dist/answerwatch /usr/local/bin/answerwatch
USER answerwatch
ENV DATA_DIR=/data PORT=3000 HOST=0.0.0.0
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s CMD curl -fsS http://127.0.0.1:3000/healthz || exit 1
ENTRYPOINT ["answerwatch"]
CMD ["serve"]
