"""Validate request bodies against Discord's published OpenAPI 3.1 description.

The big JSON file is loaded once per process; one validator is cached per operation.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import referencing
import referencing.jsonschema
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match


def _find_openapi() -> Path:
    """Discord's OpenAPI description: $DISCORD_OPENAPI_PATH, or shared/ beside the repo."""
    env = os.environ.get("DISCORD_OPENAPI_PATH")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[1]
    for candidate in (repo.parent / "shared", repo / "shared"):
        path = candidate / "discord-api" / "openapi.json"
        if path.exists():
            return path
    return repo.parent / "shared" / "discord-api" / "openapi.json"


OPENAPI_PATH = _find_openapi()
_DOC_URI = "urn:discord-openapi"
_BOOL_QUERY = {"true", "false", "1", "0", "True", "False"}


_base_type = Draft202012Validator.VALIDATORS["type"]


def _snowflake_aware_type(
    validator: Any, types: Any, instance: Any, schema: dict[str, Any]
) -> Iterator[ValidationError]:
    """Discord accepts integer snowflakes (discord.py sends e.g. attachment id 0) although
    its OpenAPI description types them as strings."""
    if (
        schema.get("format") == "snowflake"
        and isinstance(instance, int)
        and not isinstance(instance, bool)
        and instance >= 0
    ):
        return
    yield from _base_type(validator, types, instance, schema)


DiscordValidator = validators.extend(Draft202012Validator, {"type": _snowflake_aware_type})


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    regex: re.Pattern[str]
    literal_segments: int
    query_params: dict[str, dict[str, Any]]
    has_json_body: bool


def _escape_pointer(part: str) -> str:
    return part.replace("~", "~0").replace("/", "~1")


class OpenApiValidator:
    """Finds the operation for METHOD + path and validates JSON bodies and query strings."""

    _instance: OpenApiValidator | None = None
    _lock = threading.Lock()

    def __init__(self, path: Path = OPENAPI_PATH, prefix: str = "/api/v10") -> None:
        if not path.exists():
            raise FileNotFoundError(
                f"Discord's OpenAPI description is not at {path}: the tests validate every "
                "request against it. Put shared/ beside the repository or set "
                "DISCORD_OPENAPI_PATH to discord-api/openapi.json.")
        with path.open(encoding="utf-8") as fh:
            self.doc: dict[str, Any] = json.load(fh)
        self.prefix = prefix
        resource = referencing.Resource.from_contents(
            self.doc, default_specification=referencing.jsonschema.DRAFT202012
        )
        self.registry: referencing.Registry[Any] = referencing.Registry().with_resource(
            _DOC_URI, resource
        )
        self.operations: list[Operation] = []
        for template, item in self.doc["paths"].items():
            common = item.get("parameters", [])
            for method, op in item.items():
                if method == "parameters" or not isinstance(op, dict):
                    continue
                params = [*common, *op.get("parameters", [])]
                query = {p["name"]: p for p in params if p.get("in") == "query"}
                pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
                content = op.get("requestBody", {}).get("content", {})
                segments = template.strip("/").split("/")
                self.operations.append(
                    Operation(
                        method=method.upper(),
                        template=template,
                        regex=re.compile(pattern),
                        literal_segments=sum(1 for s in segments if not s.startswith("{")),
                        query_params=query,
                        has_json_body="application/json" in content,
                    )
                )
        # most literal segments first so /messages/@original beats /messages/{message_id}
        self.operations.sort(key=lambda o: -o.literal_segments)
        self._validators: dict[tuple[str, str], Any] = {}

    @classmethod
    def shared(cls) -> OpenApiValidator:
        with cls._lock:
            if cls._instance is None:
                cls._instance = cls()
            return cls._instance

    def find(self, method: str, path: str) -> Operation | None:
        if path.startswith(self.prefix):
            path = path[len(self.prefix) :]
        for op in self.operations:
            if op.method == method.upper() and op.regex.match(path):
                return op
        return None

    def _validator(self, op: Operation) -> Any:
        key = (op.method, op.template)
        validator = self._validators.get(key)
        if validator is None:
            pointer = "/".join(
                _escape_pointer(p)
                for p in [
                    "paths",
                    op.template,
                    op.method.lower(),
                    "requestBody",
                    "content",
                    "application/json",
                    "schema",
                ]
            )
            schema = {"$ref": f"{_DOC_URI}#/{pointer}"}
            validator = DiscordValidator(schema, registry=self.registry)
            self._validators[key] = validator
        return validator

    def validate_body(self, method: str, path: str, body: Any) -> list[str]:
        """Return human-readable problems (empty when Discord would accept the body)."""
        op = self.find(method, path)
        if op is None:
            return [f"{method} {path}: no such operation in Discord's OpenAPI description"]
        if not op.has_json_body:
            if body is None:
                return []
            return [f"{method} {op.template}: Discord takes no JSON body here"]
        errors = list(self._validator(op).iter_errors(body))
        if not errors:
            return []
        return [f"{method} {op.template}: {_describe(_explain(err))}" for err in errors]

    def error_tree(self, method: str, path: str, body: Any) -> dict[str, Any]:
        """Discord-style nested ``errors`` object for a 50035 response."""
        op = self.find(method, path)
        tree: dict[str, Any] = {}
        if op is None or not op.has_json_body:
            return tree
        for err in self._validator(op).iter_errors(body):
            leaf = _explain(err)
            node = tree
            for part in leaf.absolute_path:
                node = node.setdefault(str(part), {})
            node.setdefault("_errors", []).append(
                {"code": "VALIDATION_ERROR", "message": _short_message(leaf)}
            )
        return tree

    def validate_query(self, method: str, path: str, query: dict[str, str]) -> list[str]:
        op = self.find(method, path)
        if op is None:
            return []
        problems = []
        for name, value in query.items():
            param = op.query_params.get(name)
            if param is None:
                problems.append(f"{method} {op.template}: unknown query parameter {name}={value}")
                continue
            if param.get("schema", {}).get("type") == "boolean" and value not in _BOOL_QUERY:
                problems.append(f"{method} {op.template}: query {name}={value!r} is not a boolean")
        return problems


def _discriminator_failed(errs: list[ValidationError]) -> bool:
    for e in errs:
        path = list(e.relative_path)
        if path == ["type"] and e.validator in ("enum", "const", "type"):
            return True
        if not path and e.validator == "type":
            return True
    return False


def _explain(err: ValidationError) -> ValidationError:
    """Descend through anyOf/oneOf to the branch matching the instance's ``type``."""
    seen = 0
    while err.context and seen < 50:
        seen += 1
        branches: dict[Any, list[ValidationError]] = {}
        for sub in err.context:
            key = sub.relative_schema_path[0] if sub.relative_schema_path else None
            branches.setdefault(key, []).append(sub)
        candidates = [b for b in branches.values() if not _discriminator_failed(b)]
        if not candidates:
            return best_match(err.context)
        errs = min(candidates, key=len)
        err = max(errs, key=lambda e: len(e.absolute_path))
    return err


def _short_message(err: ValidationError) -> str:
    inst = err.instance
    if err.validator in ("maxItems", "minItems") and isinstance(inst, list):
        return f"has {len(inst)} items ({err.validator} {err.validator_value})"
    if err.validator in ("maxLength", "minLength") and isinstance(inst, str):
        return f"is {len(inst)} characters long ({err.validator} {err.validator_value})"
    if err.validator in ("maximum", "minimum"):
        return f"{inst!r} violates {err.validator} {err.validator_value}"
    msg = str(err.message)
    return msg if len(msg) <= 300 else msg[:300] + "..."


def _describe(err: ValidationError) -> str:
    return f"at {err.json_path}: {_short_message(err)}"
