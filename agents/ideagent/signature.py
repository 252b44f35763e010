"""The stenographer's signature sigma(I): the five fields every comparison between ideas uses.

Comparing compact signatures instead of full texts keeps the diversity judge's prompt small and
makes it judge substance (problem, mechanism) rather than wording.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

SIGNATURE_FIELDS: tuple[str, ...] = ("problem", "mechanism", "novelty", "assumptions", "effect")


class Signature(BaseModel):
    """sigma(I) = (problem, mechanism, novel addition, key assumptions, expected measurable effect)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    problem: str = Field(min_length=1, description="The problem the idea attacks, in one sentence.")
    mechanism: str = Field(min_length=1, description="The central mechanism: what is done and how it acts.")
    novelty: str = Field(min_length=1, description="What the idea adds over the background literature.")
    assumptions: str = Field(min_length=1, description="The key assumptions the mechanism relies on.")
    effect: str = Field(min_length=1, description="The expected measurable effect and how it is measured.")

    def compact(self, chars: int = 240) -> str:
        """One line per field, each cut to `chars` characters (archive listings in prompts)."""

        def cut(s: str) -> str:
            s = " ".join(s.split())
            return s if len(s) <= chars else s[: chars - 1].rstrip() + "…"

        return "\n".join(f"  {name}: {cut(getattr(self, name))}" for name in SIGNATURE_FIELDS)
