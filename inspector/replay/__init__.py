"""Replay: re-drive a server with a recorded client (plan, driver), match requests, diff sessions."""

from inspector.replay.matching import AnswerBook, MatchPolicy, Miss
from inspector.replay.plan import ReplayPlan, Step, Substitutions, plan_replay

__all__ = ["AnswerBook", "MatchPolicy", "Miss", "ReplayPlan", "Step", "Substitutions", "plan_replay"]
