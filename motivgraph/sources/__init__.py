"""Outbound literature sources shared by ingest and the tool API (kernel layer: no graph, no ingest)."""
