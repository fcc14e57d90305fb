"""Pydantic models shared by the demo server and its driver.

`WeatherReport` is the structured output of the `weather` tool (its JSON schema
becomes the tool's `outputSchema`); `BookingDetails` is the form the
`book_table` tool elicits from the client, deliberately covering every
primitive kind an elicitation schema may hold (string, date-formatted string,
integer, number, boolean, enum).
"""

from __future__ import annotations

import datetime
from typing import Literal

from pydantic import BaseModel, Field

Seating = Literal["indoor", "outdoor", "bar"]


class WeatherReport(BaseModel):
    """A (fake, deterministic) weather report for one city."""

    city: str = Field(description="The city the report is for")
    temperature_c: float = Field(description="Temperature in degrees Celsius")
    conditions: str = Field(description="Short description of the sky")
    humidity_pct: int = Field(ge=0, le=100, description="Relative humidity in percent")


class BookingDetails(BaseModel):
    """The table-booking form elicited from the user by `book_table`."""

    name: str = Field(description="Name the table is booked under")
    date: datetime.date = Field(description="Day of the booking")
    party_size: int = Field(ge=1, le=20, description="Number of guests")
    seating: Seating = Field(default="indoor", description="Where to sit")
    vegetarian: bool = Field(default=False, description="Whether a vegetarian menu is needed")
    budget_per_person: float | None = Field(default=None, description="Optional budget per guest in EUR")
