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

A well-formed source is still held back, unless the user granted it for this
view (`granted`), when it reaches past the public https web: a loopback host
(127/8, ::1, `localhost`, `*.localhost`), a private or link-local one (10/8,
172.16/12, 192.168/16, 169.254/16, fc00::/7, fe80::/10, and numeric hosts a
browser reads as IPv4 in other spellings), a non-https scheme (`http:`,
`ws:`), or a bare scheme (`https:` names every host, loopback included). The
view runs in the user's browser, next to their local services: a recording
must not be able to point it at them. Likewise the device permissions
(camera, microphone, geolocation, clipboard-write) go into `allow` only once
granted. `view_policy` says, for each thing asked, whether it was kept, held
back (and why) or dropped, so the UI can show it and offer the grant.

`frame-ancestors` names the inspector's own origin (the page that frames it),
and `sandbox allow-scripts` gives the document an opaque origin even when it
is opened outside the iframe, so it can never act as the inspector's origin.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "PERMISSIONS",
    "SOURCE_KEYS",
    "AppAsk",
    "ViewPolicy",
    "allow_attribute",
    "clean_sources",
    "held_reason",
    "view_csp",
    "view_policy",
]

# `_meta.ui.csp` keys, in the order the policy reads them.
SOURCE_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")
_PRIVATE_V4 = [
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16")
]
_PRIVATE_V6 = [ipaddress.ip_network(n) for n in ("fc00::/7", "fe80::/10")]
_NUMERIC_HOST = re.compile(r"^(?:0x[0-9a-f]*|[0-9]+)(?:\.(?:0x[0-9a-f]*|[0-9]*))*\.?$", re.I)

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


def held_reason(source: str) -> str | None:
    """Why a well-formed source needs the user's grant (None: a public https/wss origin)."""
    if "://" not in source:
        return "a bare scheme: every host, loopback and private ones included"
    scheme, rest = source.split("://", 1)
    host = re.split(r"[:/]", rest, maxsplit=1)[0].lower()
    name = host[2:] if host.startswith("*.") else host
    if name == "localhost" or name.endswith(".localhost"):
        return "a loopback host"
    if _NUMERIC_HOST.match(name):
        try:
            ip = ipaddress.ip_address(name)
        except ValueError:  # 127.1, 0x7f.0.0.1, 2130706433: browsers read these as IPv4 too
            return "a numeric host in a non-standard spelling"
        if ip.is_loopback:
            return "a loopback host"
        if any(ip in n for n in _PRIVATE_V4 + _PRIVATE_V6) or ip.is_unspecified:
            return "a private-network host"
    if scheme not in ("https", "wss"):
        return f"not https ({scheme}://)"
    return None


@dataclass
class AppAsk:
    """One thing a view's `_meta.ui` asks for, and what the policy did with it."""

    key: str  # connectDomains, resourceDomains, frameDomains, baseUriDomains, or permissions
    value: str
    status: Literal["kept", "held", "granted", "dropped"]
    reason: str | None = None


@dataclass
class ViewPolicy:
    csp: str
    allow: str
    dropped: list[str] = field(default_factory=list)  # malformed sources
    asks: list[AppAsk] = field(default_factory=list)


def view_policy(
    ui: dict[str, Any],
    frame_ancestor: str,
    *,
    granted_sources: Collection[str] = (),
    granted_permissions: Collection[str] = (),
) -> ViewPolicy:
    """The CSP and `allow` of a view whose resource declares `ui` (its `_meta.ui`), what it asked
    for and what was kept. `granted_*`: what the user allowed for this view (sources as declared,
    permissions by their `_meta.ui.permissions` key)."""
    csp, dropped, asks = _csp(ui, frame_ancestor, granted_sources)
    allow, permission_asks = _allow(ui, granted_permissions)
    return ViewPolicy(csp, allow, dropped, asks + permission_asks)


def view_csp(ui: dict[str, Any], frame_ancestor: str, granted: Collection[str] = ()) -> tuple[str, list[str]]:
    """(policy, malformed sources dropped) for a view whose resource declares `ui`.

    `frame_ancestor` is the inspector's origin (`http://127.0.0.1:PORT`)."""
    policy, dropped, _ = _csp(ui, frame_ancestor, granted)
    return policy, dropped


def _csp(
    ui: dict[str, Any], frame_ancestor: str, granted: Collection[str]
) -> tuple[str, list[str], list[AppAsk]]:
    csp = ui.get("csp") if isinstance(ui.get("csp"), dict) else {}
    assert isinstance(csp, dict)
    dropped: list[str] = []
    asks: list[AppAsk] = []

    def sources(key: str) -> list[str]:
        kept, bad = clean_sources(csp.get(key))
        dropped.extend(bad)
        asks.extend(AppAsk(key, v, "dropped", "malformed: not a plain CSP source") for v in bad)
        out = []
        for v in kept:
            reason = held_reason(v)
            if reason is None:
                asks.append(AppAsk(key, v, "kept"))
                out.append(v)
            elif v in granted:
                asks.append(AppAsk(key, v, "granted", reason))
                out.append(v)
            else:
                asks.append(AppAsk(key, v, "held", reason))
        return out

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
    return "; ".join(policy), dropped, asks


def allow_attribute(ui: dict[str, Any], granted: Collection[str] = ()) -> str:
    """The iframe `allow` attribute: the permissions the resource declares that the user granted
    ('' when none)."""
    return _allow(ui, granted)[0]


def _allow(ui: dict[str, Any], granted: Collection[str]) -> tuple[str, list[AppAsk]]:
    perms = ui.get("permissions")
    if not isinstance(perms, dict):
        return "", []
    asked = [k for k in PERMISSIONS if k in perms and perms[k] is not None]
    asks = [
        AppAsk("permissions", k, "granted", None)
        if k in granted
        else AppAsk("permissions", k, "held", "a device permission")
        for k in asked
    ]
    return "; ".join(PERMISSIONS[k] for k in asked if k in granted), asks
