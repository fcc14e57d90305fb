"""Test helper: the published HAR 1.2 JSON schema (npm `har-schema`, what `har-validator` checks with)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from referencing import Registry, Resource

from tests.conftest import PEERS

HAR_SCHEMAS = PEERS / "node_modules" / "har-schema" / "lib"


def har_validator() -> jsonschema.protocols.Validator:
    """A validator of the HAR schema (har-schema's files, with the `$ref`s between them)."""
    if not (HAR_SCHEMAS / "har.json").exists():
        pytest.fail("har-schema is not installed: run `make peers`")
    resources = [
        (path.name, Resource.from_contents(json.loads(path.read_text())))
        for path in HAR_SCHEMAS.glob("*.json")
    ]
    registry: Registry = Registry().with_resources(resources)
    root = json.loads((HAR_SCHEMAS / "har.json").read_text())
    return jsonschema.Draft6Validator(
        root, registry=registry, format_checker=jsonschema.Draft6Validator.FORMAT_CHECKER
    )
