"""Discord's message limits, checked with messages that say what a person would see."""

from __future__ import annotations

from collections.abc import Collection, Iterator
from typing import Any

IS_COMPONENTS_V2 = 1 << 15
V2_MAX_COMPONENTS = 40
"""A Components V2 message holds at most 40 components, nested ones counted."""
V2_MAX_TEXT = 4000
"""The text of all its Text Displays together: at most 4,000 characters."""
V2_TOP_LEVEL = {1, 9, 10, 12, 13, 14, 17}
"""Action Row, Section, Text Display, Media Gallery, File, Separator, Container."""
V2_IN_CONTAINER = {1, 9, 10, 12, 13, 14}
V2_ONLY = {9, 10, 11, 12, 13, 14, 17}
"""Component types a message may carry only with IS_COMPONENTS_V2."""
ATTACHMENT = "attachment://"


def _walk(components: list[Any]) -> Iterator[dict[str, Any]]:
    for comp in components:
        if not isinstance(comp, dict):
            continue
        yield comp
        yield from _walk(list(comp.get("components") or []))
        if isinstance(comp.get("accessory"), dict):
            yield comp["accessory"]


def _media_urls(comp: dict[str, Any]) -> Iterator[str]:
    """The media a component shows (Thumbnail, Media Gallery items, File)."""
    kind = comp.get("type")
    if kind == 11 and isinstance(comp.get("media"), dict):
        yield str(comp["media"].get("url") or "")
    elif kind == 12:
        for item in comp.get("items") or []:
            if isinstance(item, dict) and isinstance(item.get("media"), dict):
                yield str(item["media"].get("url") or "")
    elif kind == 13 and isinstance(comp.get("file"), dict):
        yield str(comp["file"].get("url") or "")


def gallery_urls(data: dict[str, Any]) -> list[str]:
    """The ``attachment://`` URLs the media galleries of a message body show."""
    return [url for comp in _walk(list(data.get("components") or []))
            if comp.get("type") == 12 for url in _media_urls(comp)
            if url.startswith(ATTACHMENT)]


def check_v2(data: dict[str, Any], files: Collection[str] | None = None) -> list[str]:
    """Problems with a Components V2 message body (the IS_COMPONENTS_V2 flag): only
    components (no content, embeds, stickers or poll beside them), at most 40 components
    counted with the nested ones, at most 4,000 characters of Text Display text, each
    component where Discord allows it, and each ``attachment://name`` naming one of
    ``files`` (the message's attachments; None: not checked)."""
    issues: list[str] = []
    for key in ("content", "embeds", "sticker_ids", "poll"):
        if data.get(key):
            issues.append(f"{key} cannot be sent with the IS_COMPONENTS_V2 flag")
    components = [c for c in data.get("components") or [] if isinstance(c, dict)]
    every = list(_walk(components))
    if len(every) > V2_MAX_COMPONENTS:
        issues.append(f"{len(every)} components in total (max {V2_MAX_COMPONENTS})")
    text = sum(len(str(c.get("content") or "")) for c in every if c.get("type") == 10)
    if text > V2_MAX_TEXT:
        issues.append(f"text displays hold {text} characters in total (max {V2_MAX_TEXT})")
    for i, comp in enumerate(components):
        if comp.get("type") not in V2_TOP_LEVEL:
            issues.append(f"component {i} of type {comp.get('type')} cannot be top-level")
        if comp.get("type") == 17:
            for child in comp.get("components") or []:
                if isinstance(child, dict) and child.get("type") not in V2_IN_CONTAINER:
                    issues.append(f"a container cannot hold a component of type "
                                  f"{child.get('type')}")
    for comp in every:
        kind = comp.get("type")
        if kind == 9:
            texts = comp.get("components") or []
            if not 1 <= len(texts) <= 3 or any(
                    not isinstance(t, dict) or t.get("type") != 10 for t in texts):
                issues.append("a section holds one to three text displays")
            accessory = comp.get("accessory")
            if not isinstance(accessory, dict) or accessory.get("type") not in (2, 11):
                issues.append("a section's accessory is a button or a thumbnail")
        if kind == 1:
            children = comp.get("components") or []
            buttons = [c for c in children if isinstance(c, dict) and c.get("type") == 2]
            if not children or len(buttons) > 5 or (len(buttons) < len(children)
                                                    and len(children) > 1):
                issues.append("an action row holds one to five buttons or one select")
        for url in _media_urls(comp):
            if url.startswith(ATTACHMENT) and files is not None:
                name = url[len(ATTACHMENT):]
                if name not in files:
                    issues.append(f"{url} names no attachment of the message")
    return issues


def check_message_limits(data: dict[str, Any],
                         files: Collection[str] | None = None) -> list[str]:
    """Problems with a message body (create/edit/interaction response); [] when fine.
    ``files``: the file names of the message's attachments, to check the ``attachment://``
    references of a Components V2 message (None: not checked)."""
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
    if flags & IS_COMPONENTS_V2:
        issues.extend(check_v2(data, files))
    else:
        v2 = sorted({int(c["type"]) for c in _walk(components) if c.get("type") in V2_ONLY})
        if v2:
            issues.append(f"component types {v2} need the IS_COMPONENTS_V2 flag")
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
