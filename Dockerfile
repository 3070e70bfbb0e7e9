# Image for compose.yaml's migrate, web, worker and beat services (built once).
# Stage 1 builds the wheel (maturin compiles native_eval); stage 2 runs it.
# Base images are pinned to a release; every Python package's version comes
# from requirements.lock (scripts/lock.sh), as for scripts/_venv.sh.
FROM rust:1.95.0-slim-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip python3-venv \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/build && /opt/build/bin/pip install "maturin>=1.16,<2"
WORKDIR /src
COPY . .
RUN /opt/build/bin/maturin build --release --out /wheels

FROM python:3.11.7-slim-bookworm
ENV PYTHONUNBUFFERED=1 STATIC_ROOT=/app/staticfiles
WORKDIR /app
COPY requirements.lock /tmp/requirements.lock
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir -c /tmp/requirements.lock /wheels/*.whl \
    && rm -rf /wheels /tmp/requirements.lock
COPY manage.py .
# collectstatic only reads settings; the URL keeps settings from starting an
# embedded PostgreSQL during the build.
RUN DATABASE_URL=postgres://build@localhost/build python manage.py collectstatic --noinput -v0
RUN useradd --system casino
USER casino
EXPOSE 8000
# compose.yaml names each service's command; this default is the web's.
CMD ["sh", "-c", "exec gunicorn casino.wsgi:application --bind 0.0.0.0:8000 --workers \"${WEB_WORKERS:-2}\" --threads \"${WEB_THREADS:-8}\" --worker-class gthread"]
