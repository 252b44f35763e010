"""Errors the API layer adds to motivgraph.errors (each maps to a 4xx in api.app)."""

from __future__ import annotations

from motivgraph.errors import GraphError


class InvalidCursor(GraphError):
    """A /triples cursor that this server did not hand out (or from an older graph)."""


class PaperNotFound(GraphError):
    """No Paper node has this id."""
