# PostgreSQL from Debian's package, for the compose test where no registry serves postgres:17: the
# same contract as the official image for what docker-compose.yml uses (POSTGRES_USER,
# POSTGRES_PASSWORD, POSTGRES_DB, PGDATA; a cluster initialised on first start; port 5432).
ARG BASE_IMAGE
FROM ${BASE_IMAGE}
RUN apt-get update -qq \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null \
  && rm -rf /var/lib/apt/lists/* \
  && mkdir -p /var/lib/postgresql/data /var/run/postgresql \
  && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql
RUN ln -s /usr/lib/postgresql/*/bin /usr/local/lib/postgresql-bin
ENV PATH=/usr/local/lib/postgresql-bin:$PATH PGDATA=/var/lib/postgresql/data
COPY postgres-entrypoint.sh /usr/local/bin/postgres-entrypoint.sh
USER postgres
EXPOSE 5432
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]
