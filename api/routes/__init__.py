"""Thin routes: validate (models do it), call a service, return its model."""
