"""Discord's message limits, checked with messages that say what a person would see."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

IS_COMPONENTS_V2 = 1 << 15


def _walk(components: list[Any]) -> Iterator[dict[str, Any]]:
    for comp in components:
        if not isinstance(comp, dict):
            continue
        yield comp
        yield from _walk(list(comp.get("components") or []))
        if isinstance(comp.get("accessory"), dict):
            yield comp["accessory"]


def check_message_limits(data: dict[str, Any]) -> list[str]:
    """Problems with a message body (create/edit/interaction response); [] when fine."""
    issues: list[str] = []
    content = data.get("content")
    if isinstance(content, str) and len(content) > 2000:
        issues.append(f"content is {len(content)} characters (max 2000)")
    embeds = data.get("embeds") or []
    if len(embeds) > 10:
        issues.append(f"{len(embeds)} embeds (max 10)")
    total = 0
    for i, embed in enumerate(embeds):
        if not isinstance(embed, dict):
            continue
        for key, limit in (("title", 256), ("description", 4096)):
            value = embed.get(key) or ""
            total += len(value)
            if len(value) > limit:
                issues.append(f"embed {i} {key} is {len(value)} characters (max {limit})")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            issues.append(f"embed {i} has {len(fields)} fields (max 25)")
        for fld in fields:
            name, value = str(fld.get("name", "")), str(fld.get("value", ""))
            total += len(name) + len(value)
            if len(name) > 256 or len(value) > 1024:
                issues.append(f"embed {i} field {name[:30]!r} too long (name 256, value 1024)")
        total += len(str((embed.get("footer") or {}).get("text", "")))
        total += len(str((embed.get("author") or {}).get("name", "")))
    if total > 6000:
        issues.append(f"embeds hold {total} characters in total (max 6000)")
    components = data.get("components") or []
    flags = int(data.get("flags") or 0)
    if not flags & IS_COMPONENTS_V2:
        if len(components) > 5:
            issues.append(f"{len(components)} action rows (max 5)")
        for r, row in enumerate(components):
            if not isinstance(row, dict) or row.get("type") != 1:
                issues.append(f"top-level component {r} is not an action row")
                continue
            children = row.get("components") or []
            buttons = [c for c in children if c.get("type") == 2]
            others = [c for c in children if c.get("type") != 2]
            if len(buttons) > 5:
                issues.append(f"action row {r} has {len(buttons)} buttons (max 5)")
            if others and len(children) > 1:
                issues.append(f"action row {r}: a select menu must be alone in its row")
            if not children:
                issues.append(f"action row {r} is empty")
    custom_ids: list[str] = []
    for comp in _walk(components):
        cid = comp.get("custom_id")
        if cid is not None:
            if len(str(cid)) > 100:
                issues.append(f"custom_id {str(cid)[:30]!r}... is {len(str(cid))} chars (max 100)")
            custom_ids.append(str(cid))
        if comp.get("type") == 2 and len(str(comp.get("label") or "")) > 80:
            issues.append(f"button label {comp.get('label')!r} longer than 80")
        if comp.get("type") == 3:
            options = comp.get("options") or []
            if len(options) > 25:
                issues.append(f"select {cid!r} has {len(options)} options (max 25)")
            if not options:
                issues.append(f"select {cid!r} has no options")
            values = [o.get("value") for o in options]
            if len(set(values)) != len(values):
                issues.append(f"select {cid!r} has duplicate option values")
            for opt in options:
                for key in ("label", "value", "description"):
                    if len(str(opt.get(key) or "")) > 100:
                        issues.append(f"select {cid!r} option {key} longer than 100")
    dupes = {c for c in custom_ids if custom_ids.count(c) > 1}
    if dupes:
        issues.append(f"duplicate custom_id(s) in one message: {sorted(dupes)}")
    return issues
