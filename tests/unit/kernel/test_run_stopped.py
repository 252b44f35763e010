"""A clean, resumable stop has one base (RunStopped): the extraction gate is no spent budget, yet every layer
stops on both the same way (#44)."""

from __future__ import annotations

from motivgraph.errors import BudgetExceeded, ExtractionGateStop, LLMError, RunStopped
from motivgraph.outbound import is_transient
from motivgraph.terminal import EXIT_GATE, EXIT_STOPPED, exit_code_for


def test_gate_stop_and_spent_budget_share_the_clean_stop_base() -> None:
    gate = ExtractionGateStop("too few quotes found", rate=0.1, papers=8)
    assert isinstance(gate, RunStopped) and not isinstance(gate, BudgetExceeded | LLMError)
    assert isinstance(BudgetExceeded("spent"), RunStopped)
    # the pipeline keeps both documents resumable, and the CLI still tells them apart
    assert is_transient(gate) and is_transient(BudgetExceeded("spent"))
    assert exit_code_for(gate) == EXIT_GATE and exit_code_for(BudgetExceeded("spent")) == EXIT_STOPPED
