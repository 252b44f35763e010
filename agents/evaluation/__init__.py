"""Evaluation of ideation methods: topics, generation, judges, metrics, aggregation and the report."""
