"""Behaviour diff between protocol revisions: probe a server per revision, and the version matrix."""

from inspector.versions.matrix import Column, build_matrix, column_of, parse_revisions
from inspector.versions.probe import VersionsRun, probe_revision, run_versions
from inspector.versions.runs import list_runs, matrix_of_run, matrix_of_sessions, run_sessions

__all__ = [
    "Column",
    "VersionsRun",
    "build_matrix",
    "column_of",
    "list_runs",
    "matrix_of_run",
    "matrix_of_sessions",
    "parse_revisions",
    "probe_revision",
    "run_sessions",
    "run_versions",
]
