"""nginx as a reverse proxy for the HTTP bench: the floor of one extra HTTP hop.

nginx (Debian's package; `make bench` installs `nginx-light` with apt-get
when it is missing and we are root) runs from a configuration generated into
the bench's work directory: `daemon off`, one worker (the proxy is one
process too), listening on a free loopback port, no access log, and the
upstream reached over HTTP/1.1 keep-alive connections with
`proxy_buffering off` (so SSE events pass one by one) and unbuffered
request bodies. Host is set to the server's own address, as `mcp-inspect
proxy` does. When nginx is not installed, the bench says so and skips the
column; `make test` never needs it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from urllib.parse import urlsplit

__all__ = ["find_nginx", "nginx_config"]

# Debian puts it in /usr/sbin, which is not on every user's PATH.
_CANDIDATES = ("/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx")


def find_nginx() -> tuple[Path | None, str]:
    """The nginx executable, or None and why the column is skipped."""
    found = shutil.which("nginx") or next((c for c in _CANDIDATES if Path(c).is_file()), None)
    if found is None:
        return None, (
            "nginx not found: its column is skipped (install it with `sudo apt-get install nginx-light`, "
            "or run `make bench` as root)"
        )
    return Path(found), f"nginx from {found}"


def nginx_config(target: str, port: int, workdir: Path, *, user: str | None = None) -> str:
    """nginx.conf text: listen on 127.0.0.1:`port`, forward everything to `target`'s origin."""
    upstream = urlsplit(target).netloc
    temp = {name: workdir / name for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for d in temp.values():
        d.mkdir(parents=True, exist_ok=True)
    return f"""\
daemon off;
master_process on;
worker_processes 1;
{f"user {user};" if user else ""}
pid {workdir / "nginx.pid"};
error_log {workdir / "nginx-error.log"} warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {temp["client_body"]};
    proxy_temp_path {temp["proxy"]};
    fastcgi_temp_path {temp["fastcgi"]};
    uwsgi_temp_path {temp["uwsgi"]};
    scgi_temp_path {temp["scgi"]};
    upstream mcp {{
        server {upstream};
        keepalive 64;
    }}
    server {{
        listen 127.0.0.1:{port};
        tcp_nodelay on;
        keepalive_requests 1000000;
        keepalive_timeout 75s;
        location / {{
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host {upstream};
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_cache off;
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }}
    }}
}}
"""
