"""The sandbox of an App view: its Content-Security-Policy and its iframe `allow` attribute.

A view is untrusted content from the recorded server. By default it gets no
network at all (`connect-src 'none'`), no remote script, style, image, font or
media, no frames, no forms, no `<base>`; only inline script and style (what a
single-file view needs) and `data:`/`blob:` images and media. What the
resource declares in `_meta.ui.csp` opens exactly that: `connectDomains` to
connect-src, `resourceDomains` to script/style/img/font/media, `frameDomains`
to frame-src, `baseUriDomains` to base-uri. A declared domain is kept only
when it is a plain CSP source (scheme, host with an optional `*.` label,
port, path): anything that could end the directive or add a keyword
(`;`, `,`, quotes, spaces) is dropped and reported, never passed through.

`frame-ancestors` names the inspector's own origin (the page that frames it),
and `sandbox allow-scripts` gives the document an opaque origin even when it
is opened outside the iframe, so it can never act as the inspector's origin.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["PERMISSIONS", "allow_attribute", "clean_sources", "view_csp"]

# scheme://host[:port][/path], host may start with "*."; or a bare scheme such as "https:".
_SOURCE = re.compile(
    r"^(?:(?:https?|wss?)://(?:\*\.)?[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?(?::(?:\d{1,5}|\*))?"
    r"(?:/[A-Za-z0-9._~/%-]*)?|https:|wss:)$"
)

# `_meta.ui.permissions` keys -> Permissions Policy features of the iframe `allow` attribute.
PERMISSIONS = {
    "camera": "camera",
    "microphone": "microphone",
    "geolocation": "geolocation",
    "clipboardWrite": "clipboard-write",
}


def clean_sources(values: Any) -> tuple[list[str], list[str]]:
    """(kept, dropped): the declared domains that are plain CSP sources, and the others."""
    kept: list[str] = []
    dropped: list[str] = []
    for v in values if isinstance(values, list) else []:
        if isinstance(v, str) and _SOURCE.match(v):
            if v not in kept:
                kept.append(v)
        else:
            dropped.append(str(v)[:200])
    return kept, dropped


def view_csp(ui: dict[str, Any], frame_ancestor: str) -> tuple[str, list[str]]:
    """(policy, dropped sources) for a view whose resource declares `ui` (its `_meta.ui`).

    `frame_ancestor` is the inspector's origin (`http://127.0.0.1:PORT`)."""
    csp = ui.get("csp") if isinstance(ui.get("csp"), dict) else {}
    assert isinstance(csp, dict)
    dropped: list[str] = []

    def sources(key: str) -> list[str]:
        kept, bad = clean_sources(csp.get(key))
        dropped.extend(bad)
        return kept

    connect, resource = sources("connectDomains"), sources("resourceDomains")
    frames, base = sources("frameDomains"), sources("baseUriDomains")

    def directive(name: str, fixed: list[str], extra: list[str], empty: str = "'none'") -> str:
        values = fixed + extra
        return f"{name} {' '.join(values) if values else empty}"

    policy = [
        "default-src 'none'",
        directive("script-src", ["'unsafe-inline'"], resource),
        directive("style-src", ["'unsafe-inline'"], resource),
        directive("img-src", ["data:", "blob:"], resource),
        directive("font-src", ["data:"], resource),
        directive("media-src", ["data:", "blob:"], resource),
        directive("connect-src", [], connect),
        directive("frame-src", [], frames),
        directive("base-uri", [], base),
        "form-action 'none'",
        "object-src 'none'",
        f"frame-ancestors {frame_ancestor}",
        "sandbox allow-scripts",
    ]
    return "; ".join(policy), dropped


def allow_attribute(ui: dict[str, Any]) -> str:
    """The iframe `allow` attribute: only the permissions the resource declares ('' when none)."""
    perms = ui.get("permissions")
    if not isinstance(perms, dict):
        return ""
    return "; ".join(PERMISSIONS[k] for k in PERMISSIONS if k in perms and perms[k] is not None)
