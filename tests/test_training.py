"""sinpe.lab.training: a training run is deterministic and logs what it says."""

from __future__ import annotations

import numpy as np
import pytest

from sinpe.lab import nn, tasks, training


def test_training_log_and_determinism():
    def run():
        model = nn.TokenModel(
            nn.ModelConfig(vocab=5, d_model=16, n_heads=1, d_ff=16, n_layers=1, seed=0)
        )
        held = tasks.reversal_task(np.random.default_rng(9), 20, 6, 5)
        return training.train(
            model,
            tasks.reversal_task,
            steps=20,
            length=6,
            vocab=5,
            held_out=held,
            eval_every=10,
        )

    first, second = run(), run()
    assert first.losses == second.losses and len(first.losses) == 20
    assert first.eval_steps == [10, 20]
    assert first.accuracy_at(20) == first.eval_accuracy[-1]
    with pytest.raises(ValueError, match="no evaluation after step 15"):
        first.accuracy_at(15)
    assert first.losses[-1] < first.losses[0]
