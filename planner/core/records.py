"""Typed records the planner builds from values it computed itself, without validating them again."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def trusted(cls: type[BaseModel], values: dict[str, Any]) -> Any:
    """An instance of `cls` from values the planner computed itself: every field, in declaration
    order, already of its declared type (nested models as instances). What pydantic's model_construct
    does, without its per-field loop: a large plan has thousands of these (benchmarks/RESULTS.md).
    Tests check that such plans equal their validated JSON round trip."""
    obj = _new(cls)
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj


_new, _set = object.__new__, object.__setattr__
