"""Set-level ideation (fourth seed): one call writes K idea cards, most promising first, each written
knowing the ones before it, grounded on the topic background."""
