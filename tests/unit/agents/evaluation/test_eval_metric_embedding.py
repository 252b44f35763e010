"""Embedding diversity and computable novelty, pinned to hand-computed values."""

import math

import numpy as np
import pytest

from motivgraph.agents.evaluation.metrics.diversity import (
    cosine_distance_matrix,
    embedding_diversity,
    mean_pairwise_cosine,
)
from motivgraph.agents.evaluation.metrics.novelty import computable_novelty, field_novelty


def test_diversity_of_three_vectors_by_hand() -> None:
    # e1, e2, (e1+e2)/sqrt2: cosines 0, 1/sqrt2, 1/sqrt2 -> mean sqrt2/3 -> diversity 1 - sqrt2/3
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    assert mean_pairwise_cosine(v) == pytest.approx(math.sqrt(2) / 3)
    assert embedding_diversity(v) == pytest.approx(1 - math.sqrt(2) / 3)


def test_scale_does_not_matter_and_identical_ideas_have_zero_diversity() -> None:
    assert embedding_diversity(np.array([[2.0, 0.0], [5.0, 0.0]])) == pytest.approx(0.0)
    assert embedding_diversity(np.array([[1.0, 0.0], [-1.0, 0.0]])) == pytest.approx(2.0)


def test_one_idea_has_no_diversity_and_zero_vectors_are_refused() -> None:
    assert math.isnan(embedding_diversity(np.array([[1.0, 0.0]])))
    with pytest.raises(ValueError, match="zero vector"):
        embedding_diversity(np.array([[0.0, 0.0], [1.0, 0.0]]))


def test_cosine_distance_matrix() -> None:
    d = cosine_distance_matrix(np.array([[1.0, 0.0], [0.0, 1.0]]))
    assert d.ravel().tolist() == pytest.approx([0.0, 1.0, 1.0, 0.0])


def test_novelty_is_one_minus_nearest_paper_similarity() -> None:
    papers = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    idea = np.array([3.0, 4.0])  # cos to papers: 0.6, 0.8, -0.6
    assert computable_novelty(idea, papers) == pytest.approx(0.2)
    assert computable_novelty(idea, papers, k=2) == pytest.approx(1 - 0.7)
    assert field_novelty(idea, np.array([1.0, 0.0]), papers) == pytest.approx(
        {"motivation": 0.2, "method": 0.0, "overall": 0.1})


def test_novelty_needs_papers() -> None:
    with pytest.raises(ValueError):
        computable_novelty(np.array([1.0, 0.0]), np.zeros((0, 2)))
