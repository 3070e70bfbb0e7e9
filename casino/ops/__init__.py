"""Operations: health and readiness, Prometheus metrics, structured logs with
a request id, the single-beat lock and the offline API docs (issue 18)."""
