"""Ideation sessions over HTTP: the routes that start, stream and resume runs, mounted by the serve root."""
