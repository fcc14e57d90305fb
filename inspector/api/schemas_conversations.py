"""Response models of the conversation routes (OpenAPI only: the routes answer plain JSON)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

__all__ = ["Conversations"]


class ConversationRound(BaseModel):
    n: int = Field(description="1 for the first request")
    request_seq: int
    rpc_id: str | None
    response_seq: int | None
    result_type: str | None = Field(description="input_required, complete, error, or null (no answer)")
    input_requests: dict[str, str] = Field(description="what the server asked for: key -> method")
    input_responses: list[str] = Field(description="the keys this round's request answered")
    attempts: list[int] = Field(description="earlier requests of this round whose answer broke (retried)")


class Conversation(BaseModel):
    id: int = Field(description="the seq of its first request")
    method: str
    name: str | None = Field(description="tool or prompt name, or resource URI")
    outcome: str = Field(description="complete, error or open")
    final_seq: int | None
    rounds: list[ConversationRound]


class RetryPair(BaseModel):
    original: int = Field(description="seq of the request whose answer broke")
    retry: int = Field(description="seq of the same request re-issued with a new id")
    method: str
    broken: str = Field(description="what the recording says about the original's answer")


class Conversations(BaseModel):
    conversations: list[Conversation]
    retries: list[RetryPair]
    by_seq: dict[str, dict[str, Any]] = Field(
        description="per seq: conversation {id, round, rounds, outcome, role}, retry_of, retried_by"
    )
    upto_seq: int = Field(description="the rows up to this seq were read")
