"""`run_proxy`, the proxy command's composition root, called in-process: bad input is refused in
one line before anything is opened (no listener bound, no database created)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.errors import InspectorError
from inspector.proxy_run import ProxyOptions, run_proxy


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({}, "give --target URL"),
        ({"target": "http://127.0.0.1:9/mcp", "max_record_bytes": "lots"}, "max-record-bytes"),
        ({"config": "gw.toml", "metadata_only": True}, "--metadata-only is for one --target"),
        ({"config": "gw.toml", "name": "n"}, "--name does not go with --config"),
        ({"target": "http://127.0.0.1:9/mcp", "listen": "0.0.0.0:0"}, "allow-remote"),
    ],
)
def test_bad_input_is_refused_before_anything_opens(tmp_path: Path, given: dict, said: str) -> None:
    db = tmp_path / "r.db"
    with pytest.raises(InspectorError, match=said):
        run_proxy(ProxyOptions(db=str(db), **given))
    assert not db.exists()
