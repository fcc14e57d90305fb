"""Capture: captured bytes become message rows (builder) on a recording thread (recorder)."""

from inspector.capture.builder import ROW_COLUMNS, MessageBuilder
from inspector.capture.recorder import Recorder, Subscriber, Tap

__all__ = ["ROW_COLUMNS", "MessageBuilder", "Recorder", "Subscriber", "Tap"]
