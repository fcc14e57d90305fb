"""What a spec check of a client-feature exchange reports, and the JSON Schema helper it shares. Sans-IO.

A `Finding` names the rule it comes from (`sampling.stop-reason`,
`roots.file-uri`, ...), its level (`error` for a MUST of the spec,
`warning` for a SHOULD) and a readable sentence. `schema_findings` checks a
value against a JSON Schema (Draft 2020-12) with the formats elicitation
forms may use (`email`, `uri`, `date`, `date-time`) actually checked. jsonschema is imported by the
first check, not with this module: a client that is never asked for a form does not load it.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from jsonschema import FormatChecker

__all__ = ["ERROR", "WARNING", "Finding", "blocks", "schema_error", "schema_findings", "split_uri"]

ERROR, WARNING = "error", "warning"


@dataclass(frozen=True)
class Finding:
    level: str  # error (a MUST of the spec) | warning (a SHOULD)
    rule: str
    text: str

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    def describe(self) -> str:
        """The sentence with its rule and strength, for a person reading a list of problems."""
        return f"{self.text} [{self.rule}, {'MUST' if self.level == ERROR else 'SHOULD'}]"


def blocks(content: Any) -> list[dict[str, Any]]:
    """A message's content as a list of blocks (a single block or an array)."""
    if isinstance(content, dict):
        return [content]
    if isinstance(content, list):
        return [b for b in content if isinstance(b, dict)]
    return []


# RFC 3986, appendix B (urllib is kept out of the sans-IO protocol package): scheme, authority, path.
_URI = re.compile(r"^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?://([^/?#]*))?([^?#]*)(?:\?[^#]*)?(?:#.*)?$")


def split_uri(value: Any) -> tuple[str, str | None, str] | None:
    """(scheme, authority or None, path) of a URI string; None when it is not a string or has no scheme."""
    match = _URI.match(value) if isinstance(value, str) and not any(c.isspace() for c in value) else None
    if match is None or match.group(1) is None:
        return None
    return match.group(1).lower(), match.group(2), match.group(3)


_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$")


def _email(value: object) -> bool:
    return not isinstance(value, str) or bool(_EMAIL.match(value))


def _uri(value: object) -> bool:
    return not isinstance(value, str) or split_uri(value) is not None


def _date_time(value: object) -> bool:
    if not isinstance(value, str):
        return True
    if not _DATE_TIME.match(value):
        return False
    datetime.fromisoformat(value.upper().replace("Z", "+00:00"))  # a real date and time, or ValueError
    return True


@cache
def _formats() -> FormatChecker:
    from jsonschema import FormatChecker

    formats = FormatChecker(["date"])  # jsonschema's own: YYYY-MM-DD, a real date
    # Registered by call, not as decorators: jsonschema ships no type information (its `checks` is untyped).
    formats.checks("email")(_email)
    formats.checks("uri")(_uri)
    formats.checks("date-time", raises=ValueError)(_date_time)
    return formats


def schema_error(schema: Any) -> str | None:
    """Why `schema` is not a valid JSON Schema (None when it is, or when there is none)."""
    if not isinstance(schema, dict):
        return None
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return cast(str, exc.message)  # jsonschema is untyped
    return None


def schema_findings(value: Any, schema: Any, level: str, rule: str, label: str) -> list[Finding]:
    """`value` against a valid `schema`, one finding per error, each text `{label}/{path}: {message}`."""
    if not isinstance(schema, dict) or schema_error(schema) is not None:
        return []
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(schema, format_checker=_formats())
    errors = sorted(validator.iter_errors(value), key=lambda e: [str(p) for p in e.absolute_path])
    return [
        Finding(level, rule, f"{'/'.join([label, *map(str, e.absolute_path)])}: {e.message}") for e in errors
    ]
