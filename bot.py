"""Entry point: `python bot.py` (settings from the environment or a .env file).

With no DISCORD_TOKEN (or with `--playground`) it opens the playground instead: this bot on
a local Discord (the `loopback` package) shown in a web page on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import logging
import os
import signal
import sys
from collections.abc import Callable

import discord
import yarl
from dotenv import load_dotenv

from data import DatabaseError
from runtime.collector import GcWatch
from runtime.logs import configure as configure_logging
from runtime.unobot import UnoBot
from settings import TOKEN_HELP, Config, ConfigError, positive_float

log = logging.getLogger("unobot")


def point_at(config: Config) -> None:
    """Send REST and gateway traffic to a Discord-compatible server when configured."""
    if config.api_base:
        discord.http.Route.BASE = config.api_base.rstrip("/")
    if config.gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(config.gateway_url)


async def run(config: Config) -> None:
    point_at(config)
    bot = UnoBot(config)
    loop = asyncio.get_running_loop()
    stopping = asyncio.Event()

    def _stop() -> None:
        log.info("Signal received: closing")
        stopping.set()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, _stop)
    watch = GcWatch.from_env()
    watch.start()
    async with bot:
        runner = asyncio.create_task(bot.start(config.token))
        waiter = asyncio.create_task(stopping.wait())
        done, _ = await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            waiter.cancel()
            runner.result()
        else:
            await bot.close()
            await asyncio.gather(runner, return_exceptions=True)
    watch.stop()
    log.info("Closed cleanly")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="UNO Power Grab for Discord. Without a DISCORD_TOKEN it opens the "
                    "playground: this bot on a local Discord, in your browser.")
    parser.add_argument("--playground", action="store_true",
                        help="open the playground even when DISCORD_TOKEN is set")
    parser.add_argument("--host", help="the playground's address (PLAYGROUND_HOST; default "
                        "127.0.0.1: anyone who can reach it can act as any user)")
    parser.add_argument("--port", type=int, help="the playground's port (PLAYGROUND_PORT; "
                        "default 8377, or any free port when that one is taken)")
    return parser.parse_args(argv)


async def run_playground(host: str, port: int | None, *, token_set: bool) -> None:
    """The unmodified bot, in this process, connected to a local Discord with a web page."""
    from loopback.playground import Playground

    playground = Playground(host=host, port=port,
                            database_path=os.environ.get("PLAYGROUND_DATABASE_PATH") or None)
    try:
        server = await playground.start()
        config = Config(
            token=server.token,
            database_path=playground.database_path,
            dev_guild_id=playground.guild.id,
            log_level=logging.getLevelName(logging.getLogger().level),
            api_base=server.api_base,
            gateway_url=server.gateway_url,
            time_scale=positive_float("UNO_TIME_SCALE", 1.0),
            cpu_delay=positive_float("UNO_CPU_DELAY", 1.5),
        )
        warning = playground.warning()
        if warning:
            sys.stderr.write(warning + "\n")
        sys.stdout.write(playground.announcement(token_set=token_set) + "\n")
        sys.stdout.flush()
        await run(config)
    finally:
        await playground.close()
    sys.stdout.write("The playground has stopped.\n")


def main_playground(args: argparse.Namespace, *, token_set: bool) -> int:
    from loopback.playground import PlaygroundError, settings_from_env

    level = os.environ.get("LOG_LEVEL", "").strip().upper() or "WARNING"
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
        sys.stderr.write("LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL.\n")
        return 2
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        host, port = settings_from_env(args.host, args.port)
        asyncio.run(run_playground(host, port, token_set=token_set))
    except (PlaygroundError, DatabaseError) as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    except ConfigError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    return 0


def loop_factory(config: Config) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when it is installed and ``config.uvloop`` (UNO_UVLOOP, on by
    default), else None: asyncio's own."""
    if not config.uvloop:
        return None
    try:
        import uvloop
    except ImportError:
        return None
    log.info("Event loop: uvloop %s", importlib.metadata.version("uvloop"))
    new_loop: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return new_loop


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    load_dotenv()
    token_set = bool(os.environ.get("DISCORD_TOKEN", "").strip())
    if args.playground or not token_set:
        # only a missing token opens the playground; a malformed one is still an error
        return main_playground(args, token_set=token_set)
    try:
        config = Config.from_env()
    except ConfigError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    configure_logging(config.log_level, config.log_format)
    try:
        with asyncio.Runner(loop_factory=loop_factory(config)) as runner:
            runner.run(run(config))
    except discord.LoginFailure:
        sys.stderr.write(TOKEN_HELP.format(problem="Discord refused the token.") + "\n")
        return 2
    except DatabaseError as exc:
        log.error("%s", exc)
        return 1
    except RuntimeError as exc:
        sys.stderr.write(f"{exc}\n")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
