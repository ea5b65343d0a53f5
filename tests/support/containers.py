"""The bot's image built and run with podman (tests/e2e/test_image.py).

No image registry is reached: the base is made from Debian's packages by one ``mmdebstrap``
run (Python 3.11 and its venv module, as ``python:3.11-slim`` has; the same run downloads
PostgreSQL's packages for the small PostgreSQL image that stands in for ``postgres:16``),
imported with ``podman import``; the Dockerfile takes it as its ``BASE`` build argument.
Podman runs as root with runc, on the host's network (the loopback Discord listens on
127.0.0.1 in the test process), with a containers.conf of the test's own
(``CONTAINERS_CONF``): no ulimits to copy, cgroupfs. The bot's wheels are downloaded once,
by the host's pip while mmdebstrap runs, and the builds run offline. Every image,
container, pod and volume carries the run's unique prefix and is removed at the end.

``compose_file`` reads compose.yaml as ``docker compose`` would interpolate it
(``${VAR}``, ``${VAR:-default}``, ``${VAR:?message}``).
"""

from __future__ import annotations

import asyncio
import os
import platform
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
POSTGRES_IMAGE_DIR = Path(__file__).resolve().parent / "postgres-image"
SUITE = "bookworm"
"""Debian 12: Python 3.11 (the default base's), PostgreSQL 15."""
PYTHON = "3.11"
GLIBC = 36
"""Debian 12's glibc is 2.36."""
MIRROR = "http://deb.debian.org/debian"
CONTAINERS_CONF = """\
[containers]
default_ulimits = []
[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"
"""


def why_not() -> str:
    """Why the image cannot be built and run here ("" when it can)."""
    if shutil.which("podman") is None:
        return ("podman is not installed: install Debian's podman and runc to build and run "
                "the image (.ci/run does)")
    if shutil.which("mmdebstrap") is None:
        return ("mmdebstrap is not installed: the image's base is built from Debian's "
                "packages with it (.ci/run installs it)")
    if os.geteuid() != 0:
        return "podman runs containers here as root only (the tests run as another user)"
    return ""


def interpolate(value: Any, env: Mapping[str, str]) -> Any:
    """``value`` (compose YAML) with ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?why}``
    replaced from ``env``, as compose does (unset or empty: the default or the error)."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def one(match: re.Match[str]) -> str:
        name, op, arg = match.group(1), match.group(2), match.group(3)
        found = env.get(name, "")
        if op == ":-" and not found:
            return arg
        if op == ":?" and not found:
            raise ValueError(f"{name}: {arg}")
        return found

    return re.sub(r"\$\{(\w+)(?:(:-|:\?)([^}]*))?\}", one, value)


def compose_file(env: Mapping[str, str]) -> dict[str, Any]:
    """compose.yaml, interpolated from ``env`` (merge keys resolved by the YAML loader)."""
    data = yaml.safe_load((ROOT / "compose.yaml").read_text(encoding="utf-8"))
    result: dict[str, Any] = interpolate(data, env)
    return result


@dataclass
class Podman:
    """podman as root with runc and the test's containers.conf; ``prefix`` names all it makes."""

    workdir: Path
    prefix: str = field(default_factory=lambda: f"uno-test-{uuid.uuid4().hex[:8]}")
    timings: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        conf = self.workdir / "containers.conf"
        conf.write_text(CONTAINERS_CONF)
        self.env = {**os.environ, "CONTAINERS_CONF": str(conf)}

    def command(self, *args: str) -> list[str]:
        return ["podman", "--runtime", "runc", *args]

    def run(self, *args: str, timeout: float = 600, check: bool = True) -> str:
        """``podman ARGS``: its stdout (its output in the error when it fails)."""
        done = subprocess.run(self.command(*args), env=self.env, capture_output=True,
                              text=True, timeout=timeout, check=False)
        if check and done.returncode != 0:
            raise AssertionError(f"podman {' '.join(args)} failed ({done.returncode}):\n"
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return done.stdout

    async def arun(self, *args: str, check: bool = True) -> str:
        """``run`` in a thread: the test's event loop (its loopback Discord) goes on."""
        return await asyncio.to_thread(self.run, *args, check=check)

    def timed(self, what: str, *args: str, timeout: float = 600) -> str:
        start = time.monotonic()
        out = self.run(*args, timeout=timeout)
        self.timings[what] = time.monotonic() - start
        return out

    def name(self, what: str) -> str:
        return f"{self.prefix}-{what}"

    # -- building ----------------------------------------------------------------
    def build(self) -> tuple[str, str]:
        """The base (mmdebstrap) while the wheels download, then both images: the bot's
        and the PostgreSQL image's names. Skips the test (saying why) when podman cannot
        run a container of the base."""
        wheels: list[Path] = []
        errors: list[BaseException] = []

        def download() -> None:
            try:
                wheels.append(self.download_wheels())
            except BaseException as exc:  # reported below
                errors.append(exc)

        thread = threading.Thread(target=download)
        thread.start()
        try:
            base, debs = self.build_base()
        finally:
            thread.join()
        if errors:
            raise errors[0]
        why = self.cannot_run(base)
        if why:
            pytest.skip(why)
        return self.build_images(base, debs, wheels[0])

    def build_base(self) -> tuple[str, Path]:
        """One mmdebstrap run: the base image (imported) and PostgreSQL's packages (a folder
        of .deb files for the PostgreSQL image, downloaded by the same apt)."""
        tar, debs = self.workdir / "base.tar", self.workdir / "debs"
        debs.mkdir()
        hooks = Path("/usr/share/mmdebstrap/hooks")
        command = [
            "mmdebstrap", "--quiet", "--variant=minbase",
            "--include=python3,python3-venv,ca-certificates",
            "--aptopt=APT::Install-Recommends false",
            *(f"--dpkgopt=path-exclude=/usr/share/{d}/*" for d in ("doc", "man", "info",
                                                                  "locale")),
            # merged /usr without the usrmerge package (which pulls in perl)
            *(f"--hook-dir={hooks / h}" for h in ("merged-usr", "eatmydata")
              if (hooks / h).is_dir()),
            '--customize-hook=rm -f "$1"/var/cache/apt/archives/*.deb; chroot "$1" apt-get '
            "install -qq --download-only -y --no-install-recommends postgresql-15 "
            ">/dev/null",
            f'--customize-hook=cp "$1"/var/cache/apt/archives/*.deb {debs}/',
            SUITE, str(tar), MIRROR]
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=900,
                              check=False)
        self.timings["base (mmdebstrap)"] = time.monotonic() - start
        if done.returncode != 0:
            raise AssertionError(f"mmdebstrap failed ({done.returncode}):\n"
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        base = self.name("base")
        self.timed("base (import)", "import", "--quiet", str(tar), base)
        tar.unlink()
        return base, debs

    def download_wheels(self) -> Path:
        """The bot's wheels for the base's Python (requirements.lock), downloaded by the
        host's pip (from its cache when the test environment was just installed), at the
        time mmdebstrap runs: the image's build installs them offline."""
        wheels = self.workdir / "pip" / "wheels"
        wheels.mkdir(parents=True)
        arch = platform.machine()
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--only-binary=:all:",
                   "--python-version", PYTHON, "--implementation", "cp",
                   "--abi", f"cp{PYTHON.replace('.', '')}",
                   # every manylinux the base's glibc runs (pip takes the list as given)
                   *(f"--platform=manylinux_2_{v}_{arch}" for v in range(GLIBC, 4, -1)),
                   "--dest", str(wheels),
                   "-r", str(ROOT / "requirements.txt"), "-c", str(ROOT / "requirements.lock")]
        start = time.monotonic()
        done = subprocess.run(command, capture_output=True, text=True, timeout=600,
                              check=False)
        self.timings["wheels (pip download)"] = time.monotonic() - start
        if done.returncode != 0:
            raise AssertionError(f"pip download failed ({done.returncode}):\n"
                                 f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        # the build's pip reads this site configuration: these wheels, no index
        (wheels.parent / "pip.conf").write_text(
            "[global]\nno-index = true\nfind-links = /etc/xdg/pip/wheels\n")
        return wheels.parent

    def build_images(self, base: str, debs: Path, pip: Path) -> tuple[str, str]:
        """The bot's image (the Dockerfile, BASE=base) and the PostgreSQL image, built at
        once, offline, without intermediate images (nothing to reuse on the next run).
        ``pip``: a pip configuration and its wheels (``download_wheels``), mounted at
        /etc/xdg/pip for the build only (pip's site configuration, as a local mirror
        would be)."""
        bot, pg = self.name("bot"), self.name("postgres")
        build = ["build", "--quiet", "--layers=false", "--network", "none",
                 "--build-arg", f"BASE={base}"]
        jobs = {
            "bot image": [*build, "--volume", f"{pip}:/etc/xdg/pip:ro", "--tag", bot,
                          str(ROOT)],
            "postgres image": [*build, "--volume", f"{debs}:/debs:ro", "--tag", pg,
                               str(POSTGRES_IMAGE_DIR)],
        }
        errors: list[BaseException] = []

        def one(what: str, args: list[str]) -> None:
            try:
                self.timed(what, *args, timeout=900)
            except BaseException as exc:  # reported by the caller
                errors.append(exc)

        threads = [threading.Thread(target=one, args=job) for job in jobs.items()]
        start = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.timings["images (both, at once)"] = time.monotonic() - start
        if errors:
            raise errors[0]
        return bot, pg

    def cannot_run(self, image: str) -> str:
        """Why podman cannot run a container of ``image`` here ("" when it can)."""
        done = subprocess.run(self.command("run", "--rm", "--network", "none", image, "true"),
                              env=self.env, capture_output=True, text=True, timeout=120,
                              check=False)
        if done.returncode == 0:
            return ""
        return f"podman cannot run containers here: {done.stderr.strip()[-500:]}"

    def image_size(self, image: str) -> int:
        return int(self.run("image", "inspect", "--format", "{{.Size}}", image).strip())

    # -- running -------------------------------------------------------------------
    def run_command(self, image: str, what: str, *, env: Mapping[str, str] = {},
                    pass_env: Sequence[str] = (), options: Sequence[str] = (),
                    args: Sequence[str] = ()) -> list[str]:
        """``podman run`` of ``image`` on the host's network, named ``prefix-what``:
        ``env`` given, ``pass_env`` taken from podman's own environment (a test's
        subprocess), removed when it stops."""
        return self.command(
            "run", "--rm", "--name", self.name(what), "--network", "host",
            *(f"--env={k}={v}" for k, v in env.items()), *(f"--env={k}" for k in pass_env),
            *options, image, *args)

    async def logs(self, what: str) -> str:
        """What the container ``prefix-what`` wrote (stdout and stderr)."""
        proc = await asyncio.create_subprocess_exec(
            *self.command("logs", self.name(what)), env=self.env,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        out, _ = await proc.communicate()
        return out.decode(errors="replace")

    async def succeeds(self, *args: str) -> bool:
        """Whether ``podman ARGS`` exits with 0."""
        proc = await asyncio.create_subprocess_exec(
            *self.command(*args), env=self.env, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL)
        return await proc.wait() == 0

    def remove_all(self) -> None:
        """Every pod, container, volume and image this run made (whatever is left)."""
        for listing, removal in (
                (["pod", "ps", "--format", "{{.Name}}"], ["pod", "rm", "--force"]),
                (["ps", "--all", "--format", "{{.Names}}"], ["rm", "--force"]),
                (["volume", "ls", "--format", "{{.Name}}"], ["volume", "rm", "--force"]),
                (["images", "--format", "{{.Repository}}:{{.Tag}}"], ["rmi", "--force"])):
            names = self.listed(*listing)
            if names:
                self.run(*removal, *names, check=False, timeout=120)

    def listed(self, *args: str) -> list[str]:
        out = self.run(*args, check=False, timeout=60)
        return [n for n in out.split() if self.prefix in n]
