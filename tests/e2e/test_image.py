"""End to end: the bot's image (Dockerfile) built and run with podman, as admins run bots.

One fixture for the module builds everything once (tests/support/containers.py): the base
from Debian's packages by one mmdebstrap run while the host's pip downloads the bot's wheels,
then, offline and at once, the bot's image (``BASE`` build argument) and a small PostgreSQL
image. Then:

- the image is small and runs as a user that is not root;
- without a token the container opens the playground, which answers on its port and plays
  a command;
- with a token the container logs in to the loopback Discord of this test (on the host's
  network), restores a saved game from its /data volume and plays it to its end;
- compose.yaml's fleet (PostgreSQL and its two bot processes, the same image, in a pod)
  plays one game in each process's shards.

Skipped, saying why, where podman or mmdebstrap is missing or the tests do not run as root.
The figures (sizes, build times) are printed: ``-s`` shows them.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import socket
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

from cogs.uno.table.session import Options, Session
from loopback.bot_process import BotProcess
from loopback.models import Channel
from loopback.server import LoopbackDiscord
from settings import parse_shard_ids
from support import containers
from support.e2e import FAST_ENV
from support.games import install, saved_state, scenario_session

pytestmark = [pytest.mark.asyncio(loop_scope="module")]

MAX_IMAGE_MB = 250
"""The bot's image on the Debian base: about 130 MB of Debian and Python, 70 of wheels."""


@dataclass
class Images:
    podman: containers.Podman
    bot: str
    postgres: str


@pytest.fixture(scope="module")
def images(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Images]:
    why = containers.why_not()
    if why:
        pytest.skip(why)
    podman = containers.Podman(tmp_path_factory.mktemp("image"))
    start = time.monotonic()
    try:
        bot, pg = podman.build()
        podman.timings["all builds"] = time.monotonic() - start
        yield Images(podman, bot, pg)
    finally:
        podman.remove_all()
        shutil.rmtree(podman.workdir, ignore_errors=True)  # PostgreSQL's packages, wheels
        figures = ", ".join(f"{k} {v:.0f} s" for k, v in podman.timings.items())
        print(f"\ntest_image: {figures}; module {time.monotonic() - start:.0f} s")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def finish(ch: Channel) -> Session:
    """Alice one card (R3) from winning the game (125 points of a 100-point game)."""
    a, b = ch.member("alice"), ch.member("bob")
    return scenario_session(ch, [a, b], hands={a: "R3", b: "W+4 WG G+2 G5"}, discard="R9",
                            draw="Y2 Y3 Y4", turn=a,
                            options=Options(turn_timer=600, target=100))


async def won(ch: Channel) -> str:
    """Alice plays her last card; the table says she won."""
    alice = ch.member("alice")
    await alice.slash("uno play", card="R3")
    found = await ch.wait_for(lambda m: "won the game" in m.text(), timeout=20)
    return found.text()


async def logged(podman: containers.Podman, name: str, pattern: str) -> str:
    """The container's log once it has logged ``pattern`` (the bot logs "Ready as" 2 s
    after its servers arrive: discord.py's wait for more)."""
    log = ""
    for _ in range(300):
        log = await podman.logs(name)
        if re.search(pattern, log):
            return log
        await asyncio.sleep(0.1)
    raise AssertionError(f"{pattern!r} not logged:\n{log}")


async def test_the_image_is_small_and_runs_as_a_user_not_root(images: Images) -> None:
    size = images.podman.image_size(images.bot)
    print(f"\nimage sizes: bot {size / 1e6:.0f} MB, "
          f"postgres {images.podman.image_size(images.postgres) / 1e6:.0f} MB")
    assert size < MAX_IMAGE_MB * 1e6
    out = await images.podman.arun("run", "--rm", "--network", "none", images.bot, "sh", "-c",
                            "id -u; python --version; ls /data")
    uid, version, *_ = out.split("\n")
    assert uid.isdigit() and int(uid) != 0, out
    assert version.startswith("Python 3."), out
    # no compiler or pip left in the image
    tools = await images.podman.arun("run", "--rm", "--network", "none", images.bot, "sh", "-c",
                              "command -v gcc cc pip pip3 || true")
    assert tools.strip() == "", tools


async def test_without_a_token_the_playground_answers(images: Images) -> None:
    port = free_port()
    command = images.podman.run_command(images.bot, "playground",
                                        env={"PLAYGROUND_PORT": str(port)})
    proc = await asyncio.create_subprocess_exec(*command, env=images.podman.env,
                                                stdout=asyncio.subprocess.PIPE,
                                                stderr=asyncio.subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    try:
        async with aiohttp.ClientSession() as http:
            page = ""
            for _ in range(600):
                assert proc.returncode is None, "the container stopped"
                try:
                    async with http.get(url) as resp:
                        page = await resp.text()
                        break
                except aiohttp.ClientConnectionError:
                    await asyncio.sleep(0.1)
            assert "<title>UNO Power Grab playground</title>" in page
            state: dict[str, Any] = {}
            for _ in range(300):  # the bot logs in to the playground's Discord
                async with http.get(f"{url}ui/state?as=alice") as resp:
                    state = await resp.json()
                if state["bot"]["online"] and state["commands"]:
                    break
                await asyncio.sleep(0.1)
            assert state["bot"]["online"] and state["commands"], state
            channel = next(c["id"] for c in state["channels"] if c["name"] == "uno-1")
            body = {"as": "alice", "channel": channel, "kind": "slash",
                    "command": "uno new", "options": {}}
            async with http.post(f"{url}ui/act", json=body) as resp:
                answer = await resp.json()
            assert answer["ok"], answer
    finally:
        await images.podman.arun("stop", "--time", "5", images.podman.name("playground"),
                                 check=False)
        output, _ = await asyncio.wait_for(proc.communicate(), 30)
    out = output.decode(errors="replace")
    assert f"is at http://127.0.0.1:{port}" in out, out


@pytest_asyncio.fixture(loop_scope="module")
async def discord_() -> AsyncIterator[LoopbackDiscord]:
    """A loopback Discord of the test's own."""
    async with LoopbackDiscord() as server:
        yield server


async def test_with_a_token_the_container_plays_on_discord(
        images: Images, discord_: LoopbackDiscord, tmp_path: Path) -> None:
    """The container's /data is a folder of the test's: the saved game put there is
    restored, played to its end and counted on the leaderboard."""
    guild = discord_.add_guild("Image")
    ch = guild.new_channel("play")
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o777)  # the image's user writes there
    await install(str(data / "uno.db"), finish(ch))
    (data / "uno.db").chmod(0o666)
    env = {**FAST_ENV, "UNO_ART_CACHE": "/data/art"}
    command = images.podman.run_command(
        images.bot, "bot", env=env, options=["--volume", f"{data}:/data"],
        pass_env=list(discord_.bot_env()))
    # (podman's own environment: the loopback's DISCORD_*, never the host's)
    conf = {"CONTAINERS_CONF": images.podman.env["CONTAINERS_CONF"]}
    bot = BotProcess(discord_, command, env=conf, cwd=tmp_path)
    try:
        await bot.start(ready_timeout=120)
        await ch.wait_for(lambda m: "goes on" in m.text(), timeout=30)
        assert "won the game" in await won(ch)
        alice = ch.member("alice")
        board = (await alice.slash("uno leaderboard")).text
        assert f"**1.** <@{alice.id}>: 1 win in 1 game" in board, board
        assert saved_state(str(data / "uno.db"), ch) is None, "the ended game is not saved"
        assert not discord_.take_problems() and not bot.take_tracebacks()
        assert await bot.stop(timeout=20) == 0, bot.log_tail()
        assert "Closed cleanly" in bot.log_text(), "SIGTERM reached the bot through podman"
    finally:
        if bot.running:
            await bot.kill()
        await images.podman.arun("rm", "--force", images.podman.name("bot"), check=False)


async def test_the_compose_fleet_plays_a_game_in_each_shard(
        images: Images, discord_: LoopbackDiscord, tmp_path: Path) -> None:
    """compose.yaml's services run as it says (their images from UNO_IMAGE and
    POSTGRES_IMAGE, their environment, their volumes) in one pod on the host's network:
    PostgreSQL until its health check passes, then its bot processes, each serving its
    shards (a server on each process's first shard, with a saved game in PostgreSQL)."""
    podman = images.podman
    password = "fleet-password"
    compose = containers.compose_file({"POSTGRES_PASSWORD": password,
                                       "UNO_IMAGE": images.bot,
                                       "POSTGRES_IMAGE": images.postgres})
    services: dict[str, dict[str, Any]] = compose["services"]
    bots = {name: s for name, s in services.items() if name != "postgres"}
    assert services["postgres"]["image"] == images.postgres
    assert {s["image"] for s in bots.values()} == {images.bot}, "one image for every bot"
    port = free_port()
    dsn = f"postgresql://uno:{password}@127.0.0.1:{port}/uno"
    # the .env of compose's env_file: the token, and where Discord is (the test's loopback)
    env_file = tmp_path / ".env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in {
        **discord_.bot_env(), "DEV_GUILD_ID": "", **FAST_ENV}.items()))
    discord_.gateway.max_concurrency = 4  # every shard may identify at once
    count = {int(s["environment"]["SHARD_COUNT"]) for s in bots.values()}.pop()
    first_shards = {name: int(re.split(r"[-,]", s["environment"]["SHARD_IDS"])[0])
                    for name, s in bots.items()}
    channels = {name: discord_.add_guild(f"fleet-{name}", shard=(shard, count))
                .new_channel("play") for name, shard in first_shards.items()}

    pod = podman.name("fleet")
    await podman.arun("pod", "create", "--infra=false", "--name", pod)

    async def run(name: str, service: dict[str, Any], *extra: str) -> None:
        volumes = [f"--volume={podman.name(v.split(':')[0])}:{v.split(':', 1)[1]}"
                   for v in service.get("volumes", [])]
        env = [f"--env={k}={v}" for k, v in service.get("environment", {}).items()]
        await podman.arun("run", "--detach", "--pod", pod, "--name", podman.name(name),
                   "--network", "host", *extra, *volumes, *env, service["image"])

    try:
        for volume in compose["volumes"]:
            await podman.arun("volume", "create", podman.name(volume))
        await run("postgres", services["postgres"], f"--env=PGPORT={port}")
        check = services["postgres"]["healthcheck"]["test"]
        probe = ["sh", "-c", check[1]] if check[0] == "CMD-SHELL" else check[1:]
        for _ in range(600):
            if await podman.succeeds("exec", podman.name("postgres"), *probe):
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("PostgreSQL never healthy:\n"
                                 + await podman.logs("postgres"))
        await install(dsn, *(finish(ch) for ch in channels.values()))
        for name, service in bots.items():
            assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
            url = service["environment"]["DATABASE_URL"]
            assert "@postgres:5432/" in url, url
            # on the host's network "postgres" is 127.0.0.1, on the test's free port
            service["environment"]["DATABASE_URL"] = url.replace(
                "@postgres:5432/", f"@127.0.0.1:{port}/")
            await run(name, service, f"--env-file={env_file}")
        for ch in channels.values():
            await ch.wait_for(lambda m: "goes on" in m.text(), timeout=120)
        texts = await asyncio.gather(*(won(ch) for ch in channels.values()))
        assert all("won the game" in t for t in texts)
        for name in bots:
            ids: list[int] = parse_shard_ids(bots[name]["environment"]["SHARD_IDS"]) or []
            shards = ",".join(map(str, ids))
            log = await logged(podman, name, rf"Ready as .*: shards {shards} of {count}, "
                                             r"1 servers")
            assert "Restored 1 saved games" in log, log
            assert "Traceback" not in log, log
        assert sorted(discord_.gateway.by_shard) == [(s, count) for s in range(count)]
        assert not discord_.take_problems()
        for ch in channels.values():
            assert saved_state(dsn, ch) is None, "each game ended: not saved any more"
    finally:
        await podman.arun("pod", "rm", "--force", "--time", "5", pod, check=False)

