# The Node 24 runtime the compose test builds the project's image on, where no registry serves
# node:24-slim: a Debian base made by debootstrap (BASE_IMAGE) and the Node binary of the
# repository's own `node` dev dependency (the build context holds only that binary).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
COPY node /usr/local/bin/node
# As in node:24-slim: the services run as the user `node`.
RUN groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/sh --create-home node && node --version
CMD ["node"]
