"""MotivGraph: a problem–challenge–solution knowledge graph for grounded research ideation."""
__version__ = "0.1.0"
