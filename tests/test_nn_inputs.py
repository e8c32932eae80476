"""Bad input to sinpe.lab.nn, its measurements and sinpe.lab.tasks gets a clear error (issue 16).

The Hypothesis sweep in test_hostile.py checks "a clear error or a finite
result" for every public callable; these tests pin the words of the errors a
user is most likely to meet, and the results that must not change silently.
"""

from __future__ import annotations

import collections
import inspect
import math

import numpy as np
import pytest

from sinpe import _validation
from sinpe.lab import nn, probes, tasks, training


def _rng():
    return np.random.default_rng(0)


def _config(**options):
    return nn.ModelConfig(**{"vocab": 5, "d_model": 8, "n_heads": 2, "d_ff": 16, **options})


def _model(**options):
    return nn.TokenModel(_config(n_layers=1, **options))


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: _config(encoding="alibi "), ValueError, "encoding"),
        (lambda: _config(n_layers=2**40), ValueError, "n_layers"),
        (lambda: _config(scale_embeddings="no"), TypeError, "scale_emb"),
        (lambda: _config(embedding_std=math.nan), ValueError, "embedding"),
        (lambda: _config(embedding_std=-1.0), ValueError, "embedding_std"),
        (lambda: _config(position_std=0.0), ValueError, "position_std"),
        (lambda: _config(eps=0.0), ValueError, "eps"),
        (lambda: _config(d_model=7, n_heads=1), ValueError, "even"),
        (lambda: _config(d_model=6, n_heads=4, encoding="none"), ValueError, "divisible"),
        (lambda: _config(d_model=6, n_heads=2, encoding="rope"), ValueError, "rotation"),
        (lambda: _config(max_len=0, encoding="learned"), ValueError, "max_len"),
        (lambda: _config(max_len=2**40, encoding="learned"), ValueError, "position table"),
        (lambda: _config(norm_first="yes"), TypeError, "norm_first"),
        (lambda: _config(d_ff=0), ValueError, "d_ff"),
        (lambda: _config(activation="tanh"), ValueError, "activation"),
        (lambda: nn.TokenModel({"vocab": 5}), TypeError, "config must be a sinpe.lab.nn.Model"),
        (lambda: nn.EncoderLayer(None, _rng()), TypeError, "config"),
        (lambda: nn.LayerNorm(8, eps=0.0), ValueError, "eps"),
        (lambda: nn.LayerNorm(8, eps=math.inf), ValueError, "eps"),
        (lambda: nn.PositionalEncoding(_config(), _rng(), base=1.0), ValueError, "base"),
        (lambda: nn.MLP("2,4,1", _rng()), TypeError, "sizes"),
        (lambda: nn.MLP([2, 0, 1], _rng()), ValueError, r"sizes\[1\]"),
        (lambda: training.Adam(nn.Linear(2, 2, _rng()), lr=-1.0), ValueError, "lr"),
        (lambda: training.Adam(nn.Linear(2, 2, _rng()), betas=(0.9, 1.0)), ValueError, "betas"),
        (lambda: training.Adam(nn.Linear(2, 2, _rng()), eps=0.0), ValueError, "eps"),
        (lambda: nn.Linear(10**6, 10**6, _rng()), ValueError, "entries"),
        (lambda: nn.attention_bias(None, None, 1, 0, 3), ValueError, "heads"),
        (lambda: nn.attention_bias(None, None, 1, 2, 3, np.int8), TypeError, "dtype"),
    ],
)
def test_constructors_name_the_bad_argument(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_token_model_lists_every_position_scheme():
    with pytest.raises(ValueError) as caught:
        _config(encoding="alibi ")
    assert "kind" not in str(caught.value)  # the caller never passed `kind`
    for scheme in nn.ENCODINGS:
        assert repr(scheme) in str(caught.value)


@pytest.mark.parametrize(
    ("tokens", "error", "words"),
    [
        (np.array([[1.0, 2.0]]), TypeError, "integers"),
        (np.array([[1, -1]]), ValueError, ">= 0"),  # would index the table from its end
        (np.array([[1, 5]]), ValueError, "below 5"),
        (np.array([1, 2]), ValueError, "2 dimensions"),
        (np.zeros((1, 0), dtype=int), ValueError, "non-empty"),
    ],
)
def test_token_ids_are_checked(tokens, error, words):
    model = _model()
    for call in (
        lambda: model.forward(tokens),
        lambda: training.token_accuracy(model, tokens, tokens),
        lambda: probes.attention_peak(model, tokens),
    ):
        with pytest.raises(error, match=words):
            call()


def test_permutation_must_be_one():
    model, tokens = _model(), np.array([[1, 2, 3]])
    with pytest.raises(ValueError, match="exactly once"):
        probes.equivariance_gap(model, tokens, np.array([0, 0, 1]))
    assert probes.equivariance_gap(model, tokens, np.array([2, 0, 1])) >= 0


def test_attention_peak_checks_the_layer():
    with pytest.raises(ValueError, match="layer"):
        probes.attention_peak(_model(), np.array([[1, 2]]), layer=1)


def test_softmax():
    # hand values: e^0 : e^ln3 : 0 = 1 : 3 : 0
    assert nn.softmax([0.0, math.log(3.0), -math.inf]).tolist() == pytest.approx([0.25, 0.75, 0])
    with pytest.raises(ValueError, match="-inf everywhere"):
        nn.softmax(np.array([[0.0, 1.0], [-np.inf, -np.inf]]))
    with pytest.raises(ValueError, match="finite"):
        nn.softmax([0.0, math.nan])
    with pytest.raises(ValueError, match="axis"):
        nn.softmax(np.zeros((2, 3)), axis=2)


def test_activations_and_losses_refuse_mismatched_shapes():
    with pytest.raises(ValueError, match="same shape"):
        nn.relu_backward(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="same shape"):
        nn.gelu_backward(np.ones((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match="same shape"):
        nn.mean_squared_error(np.ones(2), np.ones(1))  # would broadcast silently
    with pytest.raises(ValueError, match="overflows"):
        nn.mean_squared_error(np.array([1e300]), np.array([-1e300]))
    with pytest.raises(ValueError, match="targets"):
        nn.softmax_cross_entropy(np.zeros((2, 3)), np.array([0, 3]))  # class 3 of 3


def test_gelu_of_a_scalar_and_of_huge_values():
    # Phi(1) = (1 + erf(1/sqrt 2)) / 2, erf(0.70710678...) = 0.68268949213708590 (mpmath)
    assert float(nn.gelu(1.0)) == pytest.approx(0.5 * (1 + 0.6826894921370859), rel=1e-15)
    # Far out GELU is the identity (or 0) and its slope 1 (or 0), with no overflow warning.
    assert nn.gelu(np.array([-1e300, 1e300])).tolist() == [-0.0, 1e300]
    assert nn.gelu_backward(np.ones(2), np.array([-1e300, 1e300])).tolist() == [0.0, 1.0]


def test_check_gradients_checks_its_step():
    with pytest.raises(ValueError, match="delta"):
        training.check_gradients(nn.Linear(2, 2, _rng()), np.ones((3, 2)), delta=0.0)


def test_diverging_training_raises_in_words():
    model = nn.MLP([1, 4, 1], _rng())
    x = np.linspace(-1, 1, 8)[:, None]
    with pytest.raises(ValueError, match="diverged"):
        training.fit_regression(model, x, x, steps=50, lr=1e200)


def test_fit_regression_refuses_targets_of_the_wrong_width():
    with pytest.raises(ValueError, match="one column per model output"):
        training.fit_regression(
            nn.MLP([1, 4, 1], _rng()), np.ones((5, 1)), np.ones((5, 2)), steps=1
        )


def test_linear_probe_ignores_a_feature_that_varies_only_by_rounding():
    # Training rows: the feature is 0.1 plus one ULP exactly for label 1, so a probe
    # that standardised it would read the label from rounding noise; the test rows
    # flip it. A feature constant to 1e-12 of its size carries no information, so
    # the probe must predict the majority training label (0: three of five rows).
    ulp = math.ulp(0.1)
    train_labels = np.array([0, 0, 0, 1, 1])
    features = (0.1 + ulp * train_labels)[:, None]
    test_labels = np.array([0, 1, 1, 1])
    test_features = (0.1 + ulp * (1 - test_labels))[:, None]
    accuracy = probes.linear_probe(features, train_labels, test_features, test_labels)
    assert accuracy == 0.25  # only the single test row labelled 0 is right


def test_reversal_ceiling_limits_and_huge_vocabularies():
    with pytest.raises(ValueError, match="at most 48"):
        tasks.reversal_ceiling(10, 50)
    with pytest.raises(TypeError, match="vocab"):
        tasks.reversal_ceiling(10.0, 4)
    # With 2**62 token ids every sequence has distinct tokens (up to 1e-17): the
    # mirrored token is one of the other L - 1, each seen once, so 1 / (L - 1).
    assert tasks.reversal_ceiling(2**62, 8) == pytest.approx(1 / 7, rel=1e-12)


def test_documented_errors_instead_of_crashes():
    # Found by comparing each docstring with its code (issue 17): these used to crash
    # with IndexError, return inf, or accept an argument they then ignored.
    from sinpe import geometry, numerics

    with pytest.raises(ValueError, match="two dimensions"):
        geometry.principal_plane(np.ones((5, 1)))
    with pytest.raises(ValueError, match="bfloat16"):
        numerics.to_bfloat16([3.4e38])  # a float32, but rounds to bfloat16 infinity
    with pytest.raises(ValueError, match="recipe"):
        numerics.computed_in([1.0], 8, "float64", recipe="bogus")
    with pytest.raises(TypeError, match="token ids"):
        training.check_gradients(_model(), np.array([[1, 2]]))


def test_convert_qk_weight_names_an_odd_head_width():
    from sinpe import rope

    with pytest.raises(ValueError, match="head width of 3"):
        rope.convert_qk_weight(np.ones((6, 4)), 2, "interleaved", "concat")


def test_a_model_config_checks_each_field_once_and_the_model_trusts_it(monkeypatch):
    """Issue 38: a ModelConfig checks each field once, by the rule it declares (the
    ``constraints`` of its ``__init__``); the TokenModel built from it checks no field
    again, except the arguments of its LayerNorms (their own rules, as any standalone
    layer's). Counted where every check ends: the ``__call__`` of the rules of
    ``sinpe._validation`` (one, in ``Constraint``, that every kind of scalar rule goes
    through; the array rule's own), and ``check_entries``."""
    calls = collections.Counter()

    def counting(rule):
        original = rule.__call__

        def counted(self, value, name=""):
            calls[name or self.name] += 1
            return original(self, value, name)

        return counted

    rules = [
        rule
        for rule in vars(_validation).values()
        if isinstance(rule, type)
        and issubclass(rule, _validation.Constraint)
        and "__call__" in vars(rule)
        and rule is not _validation.Optional  # Optional delegates
    ]
    own = {_validation.Constraint, _validation.RealArray, _validation.Instance, _validation.Pair}
    assert own == set(rules)
    for rule in rules:
        monkeypatch.setattr(rule, "__call__", counting(rule))
    original_entries = nn.check_entries

    def entries(shape, *, what):
        calls[what] += 1
        return original_entries(shape, what=what)

    monkeypatch.setattr(nn, "check_entries", entries)
    # Every field given (a default declared by a rule is checked once, at import).
    arguments = dict(
        vocab=10,
        d_model=8,
        n_heads=2,
        d_ff=16,
        n_layers=1,
        encoding="learned",
        max_len=64,
        scale_embeddings=True,
        embedding_std=0.5,
        norm_first=False,
        activation="relu",
        n_outputs=3,
        seed=0,
        residual=True,
        position_std=1.0,
        eps=1e-5,
    )
    assert set(arguments) == set(inspect.signature(nn.ModelConfig).parameters)
    assert set(arguments) == set(nn.ModelConfig.__init__.constraints)  # every field declared
    config = nn.ModelConfig(**arguments)
    assert all(calls[field] == 1 for field in arguments), calls
    assert {key: count for key, count in calls.items() if count != 1} == {}, calls
    assert len(calls) == len(arguments) + 5, calls  # and five tables sized
    calls.clear()
    model = nn.TokenModel(config)
    norms = sum(isinstance(module, nn.LayerNorm) for module in model._modules())
    assert norms == 2
    again = {field: calls[field] for field in arguments if calls[field]}
    assert again == {"d_model": norms, "eps": norms}, calls
    # A layer built on its own checks its config once (the rule of ``config``).
    calls.clear()
    nn.EncoderLayer(config, np.random.default_rng(0))
    assert calls["config"] == 2, calls  # the layer's and its attention's


# issue 40: positions= for left padding (chapter 6)
PADDED = np.array([[1, 2, 3, 4, 5], [9, 9, 5, 6, 7]])
PADS = np.array([[False] * 5, [True, True, False, False, False]])
COUNTED = np.array([[0, 1, 2, 3, 4], [0, 0, 0, 1, 2]])


@pytest.mark.parametrize("encoding", ["sinusoidal", "rope", "none"])
def test_counted_positions_make_a_padded_sentence_its_own(encoding):
    model = nn.TokenModel(nn.ModelConfig(d_model=16, n_heads=2, d_ff=32, encoding=encoding))
    alone = model(np.array([[5, 6, 7]]))[0]
    fixed = model(PADDED, key_padding_mask=PADS, positions=COUNTED)[1, 2:]
    np.testing.assert_allclose(fixed, alone, atol=1e-12)
    default = model(PADDED, key_padding_mask=PADS)
    explicit = model(PADDED, key_padding_mask=PADS, positions=np.arange(5))
    np.testing.assert_array_equal(default, explicit)
    if encoding == "sinusoidal":  # an absolute encoding: the padding moves the sentence
        assert np.abs(default[1, 2:] - alone).max() > 0.1


def test_rope_backward_rotates_back_by_the_positions_of_the_forward_pass():
    grads = []
    for shift in (0, 7):  # RoPE sees offsets only: every gradient is the same
        model = nn.TokenModel(
            nn.ModelConfig(d_model=16, n_heads=2, d_ff=32, n_layers=1, encoding="rope")
        )
        logits = model(PADDED, positions=np.arange(5) + shift)
        model.backward(np.ones_like(logits))
        grads.append(model.layers[0].self_attn.grads["in_proj_weight"].copy())
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-10)


@pytest.mark.parametrize(
    ("encoding", "positions", "error", "words"),
    [
        ("sinusoidal", [0.5, 1.0, 2.0, 3.0, 4.0], TypeError, "integers"),
        ("sinusoidal", [-1, 0, 1, 2, 3], ValueError, ">= 0"),
        ("rope", [0, 1, 2], ValueError, "one per token"),
        ("learned", [0, 1, 2, 3, 4], ValueError, "learned position table"),
        ("alibi", [0, 1, 2, 3, 4], ValueError, "i - j alone"),
    ],
)
def test_positions_are_checked(encoding, positions, error, words):
    model = nn.TokenModel(
        nn.ModelConfig(d_model=16, n_heads=2, d_ff=32, n_layers=1, encoding=encoding)
    )
    with pytest.raises(error, match=words):
        model(PADDED, positions=positions)
