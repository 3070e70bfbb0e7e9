# Image for compose.yaml's web, worker and beat services.
# Stage 1 builds the wheel (maturin compiles native_eval); stage 2 runs it.
FROM rust:1-slim-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-pip python3-venv \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/build && /opt/build/bin/pip install "maturin>=1.16,<2"
WORKDIR /src
COPY . .
RUN /opt/build/bin/maturin build --release --out /wheels

FROM python:3.11-slim-bookworm
ENV PYTHONUNBUFFERED=1 STATIC_ROOT=/app/staticfiles
WORKDIR /app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
COPY manage.py .
# collectstatic only reads settings; the URL keeps settings from starting an
# embedded PostgreSQL during the build.
RUN DATABASE_URL=postgres://build@localhost/build python manage.py collectstatic --noinput -v0
RUN useradd --system casino
USER casino
EXPOSE 8000
