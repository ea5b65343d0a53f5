# UNO Power Grab bot. Build: docker build -t uno-bot .
# Run:   docker run --env-file .env -v uno-data:/data uno-bot
# BASE: any Debian-like image with Python 3.11+ and its venv module (docs/deploy.md,
# "Building with podman": the tests build one from Debian's packages).
ARG BASE=python:3.11-slim
FROM ${BASE}

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PATH=/opt/venv/bin:$PATH \
    DATABASE_PATH=/data/uno.db

WORKDIR /app

# Dependencies first, so source changes don't reinstall them: wheels only (no compiler in
# the image), into a virtualenv whose pip is removed once they are in.
COPY requirements.txt requirements.lock ./
RUN python3 -m venv /opt/venv \
    && pip install --only-binary=:all: -r requirements.txt -c requirements.lock \
    && pip uninstall -q -y pip setuptools

RUN useradd --create-home --uid 10001 uno && mkdir -p /data && chown uno:uno /data
COPY --chown=uno:uno bot.py settings.py ./
COPY --chown=uno:uno runtime ./runtime
COPY --chown=uno:uno engine ./engine
COPY --chown=uno:uno data ./data
COPY --chown=uno:uno cogs ./cogs
COPY --chown=uno:uno loopback ./loopback
# the compiled translations (messages.mo is committed: no Babel needed at run time)
COPY --chown=uno:uno locale ./locale

USER uno
VOLUME ["/data"]
CMD ["python", "bot.py"]
