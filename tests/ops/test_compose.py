"""compose.yaml runs what it says (issue 18 item 4).

The file is parsed with PyYAML and its shape asserted; Debian's
`docker-compose config -q` validates it against the compose schema
(scripts/compose_deps.sh installs it); the web's start command is run by a
real `sh` with stand-ins for python and gunicorn, and gunicorn's own parser
reads the options it gets.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
APP_SERVICES = ("web", "worker", "beat")


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _interpolate(text: str, env: dict[str, str]) -> str:
    """Compose's interpolation of a command string: ${X:-d}, then $$ -> $."""
    def one(match: re.Match) -> str:
        name, default = match.group(1), match.group(3) or ""
        return env.get(name, default)
    text = re.sub(r"(?<!\$)\$\{(\w+)(:-([^}]*))?\}", one, text)
    return text.replace("$$", "$")


def test_services_and_one_image_built_once(compose):
    services = compose["services"]
    assert set(services) == {"postgres", "redis", "migrate", *APP_SERVICES}
    built = [name for name, service in services.items() if "build" in service]
    assert built == ["migrate"], "the image is built by one service only"
    image = services["migrate"]["image"]
    for name in APP_SERVICES:
        assert services[name]["image"] == image
        assert services[name]["pull_policy"] == "never"


def test_app_services_wait_for_the_one_shot_migration(compose):
    services = compose["services"]
    migrate = services["migrate"]
    assert migrate["restart"] == "no"
    assert "manage.py migrate" in " ".join(migrate["command"])
    for name in APP_SERVICES:
        depends = services[name]["depends_on"]
        assert depends["migrate"] == {"condition": "service_completed_successfully"}
        assert depends["postgres"] == {"condition": "service_healthy"}
        assert depends["redis"] == {"condition": "service_healthy"}
        assert "migrate" not in " ".join(services[name]["command"]), name


def test_every_long_running_service_has_a_healthcheck(compose):
    services = compose["services"]
    for name in ("postgres", "redis", *APP_SERVICES):
        check = services[name].get("healthcheck")
        assert check and check["test"][0] in ("CMD", "CMD-SHELL"), name
    assert "/health/live" in " ".join(services["web"]["healthcheck"]["test"])
    assert "ping" in " ".join(services["worker"]["healthcheck"]["test"])
    assert services["beat"]["healthcheck"]["test"][-3:] == ["-m", "casino.ops.singlebeat",
                                                            "--check"]


def test_base_images_are_pinned(compose):
    pinned = re.compile(r"^[\w./-]+:\d+\.\d+(\.\d+)?(-[\w.-]+)?$")
    for name in ("postgres", "redis"):
        assert pinned.match(compose["services"][name]["image"]), compose["services"][name]
    froms = re.findall(r"^FROM\s+(\S+)", (ROOT / "Dockerfile").read_text(), re.M)
    assert len(froms) == 2
    for image in froms:
        assert pinned.match(image), image


def test_the_lock_file_is_used_by_the_dockerfile_and_the_scripts():
    lock = (ROOT / "requirements.lock").read_text().splitlines()
    pins = {line.split("==")[0].lower().replace("_", "-")
            for line in lock if line and not line.startswith("#")}
    assert all("==" in line for line in lock if line and not line.startswith("#"))
    assert {"django", "celery", "psycopg", "gunicorn"} <= pins
    assert "-c /tmp/requirements.lock" in (ROOT / "Dockerfile").read_text()
    assert "-c requirements.lock" in (ROOT / "scripts" / "_venv.sh").read_text()


def test_beat_runs_under_the_single_beat_lock(compose):
    command = compose["services"]["beat"]["command"]
    assert command[:3] == ["python", "-m", "casino.ops.singlebeat"]
    assert command[3:6] == ["celery", "-A", "casino"] and "beat" in command


def test_docker_compose_config_validates_the_file():
    binary = shutil.which("docker-compose")
    assert binary, "docker-compose is missing: scripts/compose_deps.sh installs it"
    env = {**os.environ, "SECRET_KEY": "test-only"}
    result = subprocess.run([binary, "-f", str(COMPOSE), "config", "-q"], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    # And without SECRET_KEY it refuses (the `:?` guard).
    env.pop("SECRET_KEY")
    refused = subprocess.run([binary, "-f", str(COMPOSE), "config", "-q"], env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "SECRET_KEY" in refused.stderr


def test_web_command_execs_gunicorn_with_every_option(compose, tmp_path):
    """The folded-YAML bug: sh got only --bind, and never exec'd gunicorn."""
    command = compose["services"]["web"]["command"]
    assert command[:2] == ["sh", "-c"] and len(command) == 3
    script = _interpolate(command[2], {})
    assert "\n" not in script
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "python").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "gunicorn").write_text(
        f"#!{sys.executable}\nimport json, os, sys\n"
        "print(json.dumps({'pid': os.getpid(), 'argv': sys.argv[1:]}))\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    metrics_dir = tmp_path / "prometheus"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "WEB_WORKERS": "3", "WEB_THREADS": "5",
           "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}
    shell = subprocess.Popen(["sh", "-c", script], env=env, stdout=subprocess.PIPE, text=True)
    out, _ = shell.communicate(timeout=60)
    assert shell.returncode == 0
    assert metrics_dir.is_dir()  # made fresh before gunicorn starts
    assert compose["services"]["web"]["environment"]["PROMETHEUS_MULTIPROC_DIR"]
    ran = json.loads(out)
    # exec: gunicorn replaced the shell, so the container's stop signal reaches it.
    assert ran["pid"] == shell.pid
    argv = ran["argv"]
    assert argv[0] == "casino.wsgi:application"
    from gunicorn.config import Config

    options = Config().parser().parse_args(argv)
    assert options.workers == 3 and options.threads == 5
    assert options.bind == ["0.0.0.0:8000"] and options.worker_class == "gthread"
