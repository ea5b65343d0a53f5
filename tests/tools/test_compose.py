"""compose.yaml (docs/deploy.md, "Running several processes"): no Docker engine here to run it,
so its YAML is read and what it must say is checked: PostgreSQL with a volume and a health
check, bot processes that wait for it, one SHARD_COUNT and SHARD_IDS that share the
shards out exactly, channel writes divided so that the fleet stays under what one process
may send, and a health check that asks each bot's /healthz on its own METRICS_PORT. It is
read as compose interpolates it (tests/support/containers.py); tests/e2e/test_image.py runs
it."""

from __future__ import annotations

from typing import Any

import pytest

from settings import CHANNEL_WRITES, parse_shard_ids
from support.containers import compose_file


def compose() -> dict[str, Any]:
    return compose_file({"POSTGRES_PASSWORD": "secret"})


def bots() -> dict[str, dict[str, Any]]:
    return {name: s for name, s in compose()["services"].items() if name != "postgres"}


def test_postgres_keeps_its_data_and_says_when_it_is_ready() -> None:
    pg = compose()["services"]["postgres"]
    assert pg["image"].startswith("postgres:")
    assert any(v.endswith(":/var/lib/postgresql/data") for v in pg["volumes"])
    assert "pg_isready" in " ".join(pg["healthcheck"]["test"])
    assert "pgdata" in compose()["volumes"]


def test_the_images_are_settings_with_the_usual_defaults() -> None:
    """UNO_IMAGE and POSTGRES_IMAGE name other images (a local build, another registry);
    without them: uno-bot (what ``build: .`` makes) and postgres:16. No password: an error."""
    assert compose()["services"]["postgres"]["image"] == "postgres:16"
    assert {s["image"] for s in bots().values()} == {"uno-bot"}
    other = compose_file({"POSTGRES_PASSWORD": "secret", "UNO_IMAGE": "localhost/uno:2",
                          "POSTGRES_IMAGE": "localhost/pg:16"})
    assert other["services"]["postgres"]["image"] == "localhost/pg:16"
    assert {s["image"] for name, s in other["services"].items() if name != "postgres"} \
        == {"localhost/uno:2"}
    with pytest.raises(ValueError, match="POSTGRES_PASSWORD"):
        compose_file({})


def test_the_bots_share_the_shards_out_exactly() -> None:
    found = bots()
    assert len(found) >= 2
    counts = {int(s["environment"]["SHARD_COUNT"]) for s in found.values()}
    assert len(counts) == 1, "one SHARD_COUNT for the whole fleet"
    (count,) = counts
    shards: list[int] = []
    for service in found.values():
        ids = parse_shard_ids(service["environment"]["SHARD_IDS"])
        assert ids is not None
        shards += ids
    assert sorted(shards) == list(range(count)), "each shard run by exactly one process"


def test_each_bot_waits_for_postgres_and_has_a_health_check() -> None:
    for name, service in bots().items():
        env = service["environment"]
        assert env["DATABASE_URL"].startswith("postgresql://"), name
        assert "@postgres:" in env["DATABASE_URL"], name
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy", name
        check = " ".join(service["healthcheck"]["test"])
        assert "os.environ['METRICS_PORT']" in check and "/healthz" in check, \
            "the health check asks /healthz, on the port the bot serves it"
        assert int(env["METRICS_PORT"]) > 0, name
        assert service["build"] == "." and service["env_file"] == ".env"
    ports = [s["environment"]["METRICS_PORT"] for s in bots().values()]
    assert len(set(ports)) == len(ports), "one port each: a pod's services share a network"


def test_the_fleet_stays_under_one_processes_channel_writes() -> None:
    """Discord's global limit (50 requests/s) is the bot's, whatever its processes: the
    processes' UNO_CHANNEL_WRITES add up to no more than one process's default."""
    total = sum(float(s["environment"]["UNO_CHANNEL_WRITES"]) for s in bots().values())
    assert 0 < total <= CHANNEL_WRITES
