"""MotivGraph-SoIQ: the Q-driven Socratic ideator (researcher explores and writes, mentor questions).

Entry point: `agents.soiq.session.SoiqSession`; see README "Ideation sessions (SoIQ)".
"""
