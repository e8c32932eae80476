"""A trained RoPE model stretched, without training, to a longer context.

:func:`extend_context` does it, on a copy; NumPy only.
"""

from __future__ import annotations

import copy

from sinpe._validation import Instance, Integer, Optional, Options, Real, constrained
from sinpe.lab import nn
from sinpe.rope import SCALING_METHODS, YARN_RAMPS, scaled_frequencies, yarn_temperature

__all__ = ["extend_context"]


@constrained(
    model=Instance(nn.TokenModel),
    method=Options(*SCALING_METHODS),
    factor=Real(1.0, hint="e.g. 4.0 (how many times longer the context is)"),
    original_length=Integer(hint="such as 16"),
    ramp=Optional(Options(*YARN_RAMPS)),
)
def extend_context(
    model: nn.TokenModel,
    method: str,
    factor: float,
    *,
    original_length: int,
    ramp: str | None = None,
) -> nn.TokenModel:
    """A copy of a RoPE model stretched, without training, to a context ``factor`` times longer.

    Every attention layer of the copy (a deep copy: ``model`` is unchanged)
    rotates with :func:`sinpe.rope.scaled_frequencies` of its head width, from the
    default base 10000; ``"yarn"`` also divides the query-key products by
    :func:`sinpe.rope.yarn_temperature`.

    Parameters
    ----------
    model : sinpe.lab.nn.TokenModel
        A model with ``encoding="rope"``.
    method : {"interpolation", "ntk", "yarn", "llama3"}
        Position Interpolation, NTK-aware base scaling, YaRN, or Llama 3.1's bands.
    factor : float
        The scale ``s >= 1``: new context / ``original_length``.
    original_length : int
        The context the model was trained on (YaRN's ramp is set by it).
    ramp : {"released", "paper"}, optional
        YaRN only: the ramp of :func:`sinpe.rope.scaled_frequencies`.

    Examples
    --------
    >>> from sinpe.lab import nn
    >>> config = nn.ModelConfig(vocab=10, d_model=8, n_heads=2, n_layers=1, encoding="rope")
    >>> model = nn.TokenModel(config)
    >>> longer = extend_context(model, "yarn", 4.0, original_length=16)
    >>> attention = longer.layers[0].self_attn
    >>> attention.frequencies.shape, round(attention.temperature, 6)   # head width 4
    ((2,), 0.771321)
    """
    if not model.layers or any(layer.self_attn.encoding != "rope" for layer in model.layers):
        raise ValueError(
            "extend_context stretches RoPE; pass a model built with encoding='rope' "
            "(and at least one layer)"
        )
    stretched = copy.deepcopy(model)
    temperature = yarn_temperature(factor) if method == "yarn" else 1.0
    for attention in (layer.self_attn for layer in stretched.layers):
        head_width = attention.params["in_proj_weight"].shape[1] // attention.n_heads
        theta = scaled_frequencies(
            head_width, factor, method=method, original_length=original_length, ramp=ramp
        )
        attention._set_rope(theta, temperature, head_width=head_width)
    return stretched
