"""MotivGraph-SoIQ: the Q-driven Socratic ideator (researcher explores and writes, mentor questions).

The registered method `soiq` (`agents.soiq.method.SoiqMethod`) on the ideation platform
(`agents.core`); see docs/ideation.md, "Ideation sessions (SoIQ)".
"""
