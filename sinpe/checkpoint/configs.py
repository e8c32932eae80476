"""What a model's config says about positions: Hugging Face ``config.json``, Meta's
``params.json`` and GGUF metadata, as :class:`~sinpe.checkpoint.findings.Encoding` findings.

:func:`config_encodings` reads a ``config.json`` as transformers does (v4.57.1 and
v5.17.0): ``rope_theta`` (10000 when absent, said so), ``rope_scaling`` (``type`` or
``rope_type``) or v5's ``rope_parameters``, nested per ``layer_types`` (Gemma 4) or
split by ``rope_local_base_freq`` (Gemma 3 in v4), ``partial_rotary_factor`` /
``rotary_pct`` / ``rotary_dim``, ``head_dim``, MLA's ``qk_rope_head_dim``,
``mrope_section``, Llama 4's ``no_rope_layers`` and Cohere 2's NoPE global layers,
ALiBi flags (BLOOM, MPT, Falcon), learned tables (GPT-2, OPT's offset of 2, BERT,
RoBERTa), T5's relative bias and Marian's sinusoids. The frequencies are those of
:func:`sinpe.rope_scaling.rope_init`; what transformers would refuse (a ``KeyError`` or
``ValueError`` of either release) is a problem, what it only warns about is a note.
:func:`params_encodings` reads Meta's ``params.json`` (interleaved pairs), and
:func:`gguf_encodings` a GGUF's ``[arch].rope.*`` keys, with the pairing llama.cpp's
``llama_model_rope_type`` gives the architecture. A config that cannot be computed (a
``rope_scaling`` without its ``factor``, an unknown ``rope_type``) raises
:class:`~sinpe.checkpoint.files.CheckpointError`.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import Any, TypeAlias

import numpy as np

from sinpe.checkpoint.files import CheckpointError
from sinpe.checkpoint.findings import Encoding, Scaling, _shown_layers, ladder, rope_summary
from sinpe.checkpoint.gguf import GGUFValue
from sinpe.core import frequencies
from sinpe.rope_scaling import ROPE_TYPES, rope_init

#: A parsed JSON object (``config.json``, ``params.json``, a ``rope_scaling`` dict): its
#: values are whatever the file holds, each checked where it is read.
JSONObject: TypeAlias = dict[str, Any]
#: One group of layers: (layers, rope parameters or None for NoPE, notes).
LayerGroup: TypeAlias = tuple["str | list[int]", "JSONObject | None", list[str]]

__all__ = [
    "GGUF_ROPE_TYPES",
    "config_encodings",
    "gguf_encodings",
    "implied_frequencies",
    "params_encodings",
]

#: The default base of transformers (``default_theta``), Meta's args and llama.cpp.
DEFAULT_BASE = 10000.0
#: Older names transformers maps onto a rope type (Phi-3's ``su`` and ``yarn`` are
#: LongRoPE; Qwen2-VL's ``mrope`` is ``default`` with sections).
_ALIASES = {"su": "longrope", "mrope": "default"}
#: The keys Llama 3.1's rule reads, each required by both releases.
_LLAMA3_KEYS = {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"}
#: Keys transformers requires per rope type, v4.57.1 and v5.17.0 (``_check_received_keys``);
#: ``rope_type`` itself is implied.
_REQUIRED = {
    "4.57.1": {
        "linear": {"factor"},
        "dynamic": {"factor"},
        "yarn": {"factor"},
        "longrope": {"short_factor", "long_factor"},
        "llama3": _LLAMA3_KEYS,
    },
    "5.17.0": {
        "linear": {"factor"},
        "dynamic": {"factor"},
        "yarn": {"factor", "original_max_position_embeddings"},
        "longrope": {"short_factor", "long_factor", "original_max_position_embeddings"},
        "llama3": _LLAMA3_KEYS,
    },
}
#: The keys each type reads (beside rope_type, rope_theta, partial_rotary_factor).
_KNOWN_KEYS = {
    "default": set(),
    "linear": {"factor"},
    "dynamic": {"factor", "original_max_position_embeddings"},
    "yarn": {
        "factor",
        "attention_factor",
        "beta_fast",
        "beta_slow",
        "original_max_position_embeddings",
        "mscale",
        "mscale_all_dim",
        "truncate",
    },
    "longrope": {
        "short_factor",
        "long_factor",
        "attention_factor",
        "factor",
        "original_max_position_embeddings",
    },
    "llama3": _LLAMA3_KEYS,
    "proportional": {"factor"},
}
#: transformers model types whose attention pairs as Llama's ``rotate_half`` (split-half:
#: llama.cpp's converter permutes Meta's Llama into this order, and reads the others as
#: NEOX, unpermuted), or as interleaved pairs (GPT-J; Cohere's and Cohere 2's rotate_half
#: on x[..., ::2]; DeepSeek V2/V3's view_as_complex). Others: unknown.
_HF_PAIRING = {
    **dict.fromkeys(
        (
            "llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl",
            "qwen3", "qwen3_moe", "gemma", "gemma2", "gemma3", "gemma3_text", "gemma4",
            "gemma4_text", "phi", "phi3", "gpt_neox", "falcon", "gpt_oss",
        ),
        "concat",
    ),
    **dict.fromkeys(("gptj", "cohere", "cohere2", "deepseek_v2", "deepseek_v3"), "interleaved"),
}  # fmt: skip
#: Learned absolute tables: the config key of their length, and the rows beyond it.
_LEARNED = {
    "gpt2": ("n_positions", 0),
    "gpt_neo": ("max_position_embeddings", 0),
    "opt": ("max_position_embeddings", 2),  # OPTLearnedPositionalEmbedding: offset 2
    "bart": ("max_position_embeddings", 2),
    "bert": ("max_position_embeddings", 0),
    "roberta": ("max_position_embeddings", 0),  # 514 = 512 + padding_idx 1 + 1
    "xlm-roberta": ("max_position_embeddings", 0),
    "distilbert": ("max_position_embeddings", 0),
    "electra": ("max_position_embeddings", 0),
}
_RELATIVE = ("t5", "mt5", "umt5", "longt5")
_SINUSOIDAL = ("marian", "m2m_100", "fsmt", "pegasus", "speech_to_text", "xglm")
#: llama.cpp's ``llama_model_rope_type``: GGUF architectures by the RoPE they run
#: (NORM: consecutive pairs; NEOX: pairs offset by n_rot / 2; MROPE / IMROPE: sections;
#: NONE: no RoPE). Generated from llama.cpp's llama-model.cpp and llama-arch.cpp (the
#: tree vendored in llama-cpp-python 0.3.36); architectures decided at load time (glm4,
#: bailingmoe3, hunyuan-vl, dflash) are left out, so they read as unknown.
GGUF_ROPE_TYPES = {
    "NORM": frozenset({
        "arcee", "arctic", "baichuan", "bailingmoe", "chameleon", "chatglm", "cohere2",
        "cohere2moe", "command-r", "deci", "deepseek", "deepseek2", "deepseek2-ocr", "deepseek32",
        "deepseek4", "dots3note", "eagle3", "ernie4_5", "ernie4_5-moe", "glm-dsa", "granite",
        "granite_swa", "granitehybrid", "granitemoe", "graniteswitch", "hy_v4", "internlm2",
        "llada", "llama", "llama-embed", "llama4", "maincoder", "minicpm", "mistral3", "mistral4",
        "muse-glimmer", "nanbeige", "neo-bert", "olmo", "plm", "pockettts", "smollm3", "starcoder",
        "xverse",
    }),
    "NEOX": frozenset({
        "afmoe", "apertus", "bailingmoe2", "bert", "bitnet", "codeshell", "cogvlm", "dbrx",
        "dots1", "dream", "eurobert", "exaone", "exaone-moe", "exaone4", "falcon", "falcon-h1",
        "gemma", "gemma-embedding", "gemma2", "gemma3", "gemma3n", "gemma4", "gemma4-assistant",
        "gpt-oss", "gptneox", "grok", "grovemoe", "hrm_text", "hunyuan-dense", "hunyuan-moe",
        "hy_v3", "jais2", "jina-bert-v3", "laguna", "lfm2", "lfm2moe", "llada-moe", "maple",
        "mellum", "mimo2", "minicpm3", "minimax-01", "minimax-m2", "minimax-m3", "modern-bert",
        "nemotron", "nomic-bert", "nomic-bert-moe", "olmo2", "olmoe", "openelm", "orion",
        "pangu-embedded", "phi2", "phi3", "phimoe", "plamo", "plamo2", "plamo3", "qwen", "qwen2",
        "qwen2moe", "qwen3", "qwen3moe", "qwen3next", "rnd1", "seed_oss", "smallthinker",
        "spark2_5", "stablelm", "starcoder2", "step35", "talkie",
    }),
    "MROPE": frozenset({"dflash", "paddleocr", "qwen2vl"}),
    "IMROPE": frozenset({"qwen35", "qwen35moe", "qwen3tts", "qwen3vl", "qwen3vlmoe", "qwen4exp"}),
    "NONE": frozenset({
        "(unknown)", "arwkv7", "bloom", "clip", "glm5-next", "gpt2", "gptj", "jais", "jamba",
        "jina-bert-v2", "kimi-k3", "kimi-linear", "mamba", "mamba2", "mpt", "nemotron_h",
        "nemotron_h_moe", "refact", "rwkv6", "rwkv6qwen2", "rwkv7", "t5", "t5encoder",
        "wavtokenizer-dec",
    }),
}  # fmt: skip
_GGUF_PAIRING = {"NORM": "interleaved", "NEOX": "concat"}
#: GGUF architectures with ALiBi (llama.cpp's graphs with ``max_alibi_bias``).
_GGUF_ALIBI = ("bloom", "mpt", "jais", "jina-bert-v2", "refact")
_GGUF_SCALING = ("none", "linear", "yarn", "longrope")


def _number(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise CheckpointError(f"{name} must be a finite number, got {value!r}")
    return float(value)


#: The largest head width, layer count or pattern read from a config: nothing is
#: allocated from a larger claim (real models: head_dim <= 512, layers <= 200).
MAX_CLAIM = 2**16


def _integer(value: object, name: str, high: int = MAX_CLAIM) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise CheckpointError(f"{name} must be a positive integer, got {value!r}")
    if int(value) > high:
        raise CheckpointError(f"{name} is {value}: more than {high}, not a real model's")
    return int(value)


#: The longest context length read from a file (real models: 10^7 tokens at most).
MAX_CONTEXT = 2**40


def _context(value: object, name: str) -> int | None:
    """An optional context length (None when the file does not say)."""
    return None if value is None else _integer(value, name, MAX_CONTEXT)


def _text_config(config: JSONObject) -> JSONObject:
    """The language model's part: ``text_config`` (vision-language models, Llama 4,
    Gemma 3 / 4) with the top level's keys it lacks."""
    inner = config.get("text_config")
    if not isinstance(inner, dict):
        return config
    merged = {k: v for k, v in config.items() if k != "text_config"}
    merged.update(inner)
    return merged


def _model_type(config: JSONObject) -> str:
    kind = config.get("model_type")
    return kind if isinstance(kind, str) else ""


def config_encodings(config: JSONObject, *, source: str = "config.json") -> list[Encoding]:
    """The encodings a Hugging Face ``config.json`` (parsed) declares (module docstring).

    Examples
    --------
    >>> from sinpe.checkpoint.configs import config_encodings
    >>> [found] = config_encodings({"model_type": "gpt2", "n_positions": 1024})
    >>> found.kind, found.context, found.summary
    ('learned', 1024, 'learned absolute positions, a table of 1024 rows (gpt2)')
    """
    if not isinstance(config, dict):
        raise CheckpointError(f"{source} must be a JSON object, got {type(config).__name__}")
    top = _model_type(config)
    text = _text_config(config)
    kind = _model_type(text) or top
    other = _not_rope(text, kind, source)
    if other is not None:
        return [other]
    if not _says_rope(text, kind):
        return [
            Encoding(
                source,
                "unknown",
                summary=f"no position setting known to sinpe (model_type {kind or 'missing'!r})",
                notes=[
                    "the config names no rope_theta, rope_scaling, rope_parameters, "
                    "ALiBi flag or position table that sinpe knows"
                ],
            )
        ]
    return _rope_encodings(text, kind, source)


def _not_rope(config: JSONObject, kind: str, source: str) -> Encoding | None:
    """ALiBi, learned, relative-bias and sinusoidal models; None for a RoPE model."""
    family = kind.removesuffix("_text")
    attn: JSONObject = config["attn_config"] if isinstance(config.get("attn_config"), dict) else {}
    if (
        family == "bloom"
        or (family == "mpt" and attn.get("alibi", True))
        or (family == "falcon" and config.get("alibi") is True)
        or config.get("position_embedding_type") == "alibi"
    ):
        bias = attn.get("alibi_bias_max", 8) if family == "mpt" else 8
        heads = config.get("n_head", config.get("num_attention_heads"))
        return Encoding(
            source,
            "alibi",
            summary=f"ALiBi, slopes 2^(-{bias} h / n) over {heads} heads ({family or 'model'})",
            details={"heads": heads, "alibi_bias_max": bias},
        )
    if family in _RELATIVE:
        buckets = config.get("relative_attention_num_buckets", 32)
        distance = config.get("relative_attention_max_distance", 128)
        return Encoding(
            source,
            "relative-bias",
            summary=f"T5 relative attention bias: {buckets} buckets up to distance {distance}",
            details={"buckets": buckets, "max_distance": distance},
        )
    if family in _SINUSOIDAL:
        rows = config.get("max_position_embeddings")
        return Encoding(
            source,
            "sinusoidal",
            summary=f"fixed sinusoids, sin | cos halves (concat), {rows} rows ({family})",
            base=DEFAULT_BASE,
            context=rows,
            details={"layout": "concat"},
        )
    if family in _LEARNED or _bert_like(config, kind):
        key, offset = _LEARNED.get(family, ("max_position_embeddings", 0))
        rows = config.get(key)
        notes = []
        if not kind:
            notes.append(
                "no model_type: read as a BERT-family config (type_vocab_size, "
                "max_position_embeddings, no rope key)"
            )
        if config.get("position_embedding_type", "absolute") != "absolute":
            kind_of = config["position_embedding_type"]
            return Encoding(
                source,
                "relative-bias",
                summary=f"BERT relative position embeddings ({kind_of})",
                context=rows,
                notes=notes,
            )
        table = None if rows is None else rows + offset
        summary = f"learned absolute positions, a table of {table} rows ({family or 'BERT-like'})"
        if offset:
            summary += f": {rows} positions after an offset of {offset}"
        if family == "roberta":
            summary += "; positions start at padding_idx + 1 = 2"
        return Encoding(source, "learned", summary=summary, context=rows, notes=notes)
    return None


def _bert_like(config: JSONObject, kind: str) -> bool:
    return not kind and "type_vocab_size" in config and "max_position_embeddings" in config


def _says_rope(config: JSONObject, kind: str) -> bool:
    keys = (
        "rope_theta",
        "rope_scaling",
        "rope_parameters",
        "rotary_pct",
        "rotary_dim",
        "rotary_emb_base",
        "partial_rotary_factor",
        "qk_rope_head_dim",
    )
    return any(key in config for key in keys) or kind in _HF_PAIRING


# --- RoPE configs ------------------------------------------------------------------------


def _rope_encodings(config: JSONObject, kind: str, source: str) -> list[Encoding]:
    head_dim, head_note = _head_dim(config)
    longest = config.get("max_position_embeddings", config.get("n_positions"))
    layers = _layer_rope(config, kind)
    found = []
    for label, parameters, notes in layers:
        if parameters is None:
            found.append(_nope(source, label, notes))
            continue
        encoding = _rope_entry(config, kind, source, parameters, head_dim, longest, label)
        encoding.notes[:0] = [*head_note, *notes]
        found.append(encoding)
    return found


def _nope(source: str, layers: str | list[int], notes: list[str]) -> Encoding:
    summary = f"no position encoding (NoPE) in {_shown_layers(layers)}"
    return Encoding(source, "none", summary=summary, layers=layers, notes=notes)


def _head_dim(config: JSONObject) -> tuple[int, list[str]]:
    if "qk_rope_head_dim" in config:  # MLA: RoPE on a decoupled part of each head
        return _integer(config["qk_rope_head_dim"], "qk_rope_head_dim"), []
    if config.get("head_dim") is not None:
        return _integer(config["head_dim"], "head_dim"), []
    hidden = config.get("hidden_size", config.get("n_embd"))
    heads = config.get("num_attention_heads", config.get("n_head"))
    if hidden is None or heads is None:
        raise CheckpointError(
            "the config has no head_dim, and no hidden_size and num_attention_heads to "
            "derive it from"
        )
    width = _integer(hidden, "hidden_size", 2**24) // _integer(heads, "num_attention_heads")
    return width, [f"head_dim not in the config: hidden_size // num_attention_heads = {width}"]


def _layer_types(config: JSONObject, kind: str) -> list[str] | None:
    types = config.get("layer_types")
    if isinstance(types, list) and all(isinstance(t, str) for t in types):
        return types
    count = config.get("num_hidden_layers")
    pattern = config.get(
        "sliding_window_pattern", {"gemma3_text": 6, "gemma3": 6, "cohere2": 4}.get(kind)
    )
    if pattern and count is not None:
        count = _integer(count, "num_hidden_layers")
        pattern = _integer(pattern, "sliding_window_pattern")
        return [
            "sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(count)
        ]
    return None


def _layer_rope(config: JSONObject, kind: str) -> list[LayerGroup]:
    """``(layers, rope parameters or None for NoPE, notes)`` for each group of layers."""
    base_value = config.get("rope_theta", config.get("rotary_emb_base"))
    notes = []
    if base_value is None:
        notes.append(f"rope_theta not in the config: transformers defaults to {DEFAULT_BASE:g}")
        base_value = DEFAULT_BASE
    share = config.get("partial_rotary_factor")
    if share is None and "rotary_pct" in config:
        share = config["rotary_pct"]
    if share is None and kind == "gpt_neox":
        share = 0.25
        notes.append("rotary_pct not in the config: GPT-NeoX defaults to 0.25")
    nested = config.get("rope_parameters")
    types = _layer_types(config, kind)
    if isinstance(nested, dict) and types and not set(nested).isdisjoint(types):
        notes = [n for n in notes if not n.startswith("rope_theta not in")]
        groups: list[LayerGroup] = []
        for label in dict.fromkeys(types):
            entry = nested.get(label)
            if entry is not None and not isinstance(entry, dict):
                raise CheckpointError(f"rope_parameters[{label!r}] is not a JSON object")
            groups.append(
                (label, None if entry is None else _standard(entry, base_value, share), list(notes))
            )
        return groups
    scaling = nested if isinstance(nested, dict) else config.get("rope_scaling")
    if scaling is not None and not isinstance(scaling, dict):
        raise CheckpointError(f"rope_scaling must be a JSON object or null, got {scaling!r}")
    parameters = _standard(scaling or {}, base_value, share)
    if "rope_local_base_freq" in config and types:  # Gemma 3 in v4: local layers default
        local = _standard({}, config["rope_local_base_freq"], share)
        return [("full_attention", parameters, notes), ("sliding_attention", local, list(notes))]
    if kind.startswith("llama4"):
        return _llama4_layers(config, parameters, notes)
    if kind == "cohere2" and types:
        return [
            ("sliding_attention", parameters, notes),
            ("full_attention", None, ["Cohere 2 applies RoPE on sliding layers only"]),
        ]
    return [("all", parameters, notes)]


def _llama4_layers(
    config: JSONObject, parameters: JSONObject, notes: list[str]
) -> list[LayerGroup]:
    count = config.get("num_hidden_layers")
    flags = config.get("no_rope_layers")
    interval = config.get("no_rope_layer_interval", config.get("nope_layer_interval", 4))
    if not flags:
        if count is None:
            return [("all", parameters, notes)]
        count = _integer(count, "num_hidden_layers")
        interval = _integer(interval, "no_rope_layer_interval")
        flags = [int((i + 1) % interval != 0) for i in range(count)]
        notes = [
            *notes,
            f"no_rope_layers not in the config: transformers makes every "
            f"{interval}th layer NoPE (no_rope_layer_interval {interval})",
        ]
    rope = [i for i, flag in enumerate(flags) if flag]
    nope = [i for i, flag in enumerate(flags) if not flag]
    groups: list[LayerGroup] = [(rope, parameters, notes)]
    if nope:
        groups.append((nope, None, ["no_rope_layers: 0 marks a layer without RoPE"]))
    return groups


def _standard(scaling: JSONObject, base_value: object, share: object) -> JSONObject:
    """One layer type's parameters as v5's ``standardize_rope_params`` leaves them."""
    parameters = dict(scaling)
    given = parameters.get("rope_type", parameters.get("type", "default"))
    parameters.pop("type", None)
    parameters["rope_type"] = given
    parameters.setdefault("rope_theta", base_value)
    if share is not None:
        parameters.setdefault("partial_rotary_factor", share)
    parameters["_given"] = dict(scaling)
    return parameters


def _rope_entry(
    config: JSONObject,
    kind: str,
    source: str,
    parameters: JSONObject,
    head_dim: int,
    longest: int | None,
    label: str | list[int],
) -> Encoding:
    given = parameters.pop("_given")
    rope_type = parameters["rope_type"]
    if not isinstance(rope_type, str):
        raise CheckpointError(f"rope_type must be a string, got {rope_type!r}")
    named = rope_type
    rope_type = _ALIASES.get(rope_type, rope_type)
    if kind == "phi3" and named == "yarn":
        rope_type = "longrope"  # Phi3Config._rope_scaling_adjustment
    if rope_type not in ROPE_TYPES:
        raise CheckpointError(
            f"unknown rope_type {named!r} in {source}; transformers knows "
            f"{', '.join(ROPE_TYPES)} (and the older names {', '.join(_ALIASES)})"
        )
    parameters["rope_type"] = rope_type
    problems, notes = _validate(config, kind, parameters, given, named, head_dim, longest)
    base = _number(parameters["rope_theta"], "rope_theta")
    if rope_type in ("llama3", "yarn", "longrope"):
        orig = config.get("original_max_position_embeddings")
        if kind == "phi3" and orig is not None:
            parameters["original_max_position_embeddings"] = orig
        elif "original_max_position_embeddings" not in parameters and longest is not None:
            parameters["original_max_position_embeddings"] = longest
            notes.append(
                f"original_max_position_embeddings not set: taken as "
                f"max_position_embeddings = {longest} (v5's standardize_rope_params)"
            )
    share = parameters.get("partial_rotary_factor", 1.0)
    try:
        theta, attention = rope_init(parameters, head_dim, max_position_embeddings=longest)
    except KeyError as error:
        raise CheckpointError(f"{source}: {error.args[0]}") from None
    except (TypeError, ValueError) as error:
        raise CheckpointError(f"{source}: cannot compute the RoPE frequencies: {error}") from None
    rotary = int(head_dim * share)
    if rope_type == "proportional":  # pairs turning: int(share * head_dim // 2)
        rotary = 2 * int(share * head_dim // 2)
    if kind == "gptj" and "rotary_dim" in config:
        rotary = _integer(config["rotary_dim"], "rotary_dim")
        theta = frequencies(rotary, base=base)
    scaling = _scaling(parameters, rope_type, longest)
    interleaved = config.get("rope_interleave") is True
    pairing = "interleaved" if interleaved else _HF_PAIRING.get(kind, "unknown")
    if pairing == "unknown":
        notes.append(
            f"pairing unknown: frequencies cannot tell interleaved from split-half, "
            f"and sinpe knows no convention for model_type {kind or 'missing'!r}"
        )
    steps = ladder(theta, rotary if rope_type != "proportional" else head_dim, base, scaling)
    encoding = Encoding(
        source,
        "rope",
        base=base,
        scaling=scaling,
        head_dim=head_dim if "qk_rope_head_dim" not in config else _mla_head(config),
        rotary_dim=rotary,
        pairing=pairing,
        layers=label,
        context=longest,
        problems=problems,
        notes=notes,
        ladder=steps,
        details={"attention_factor": attention, "inv_freq": theta},
    )
    if isinstance(given.get("mrope_section"), list):
        encoding.notes.append(
            f"M-RoPE: the pairs are split {given['mrope_section']} among time, "
            f"height and width positions (transformers reads it as 'default')"
        )
        encoding.details["mrope_section"] = given["mrope_section"]
    encoding.summary = rope_summary(encoding)
    return encoding


def _mla_head(config: JSONObject) -> int | None:
    nope = config.get("qk_nope_head_dim")
    rope = config.get("qk_rope_head_dim")
    return nope + rope if isinstance(nope, int) and isinstance(rope, int) else None


def _scaling(parameters: JSONObject, rope_type: str, longest: int | None) -> Scaling | None:
    if rope_type == "default":
        return None
    if rope_type == "proportional":
        factor = parameters.get("factor", 1.0)
        return Scaling(
            "proportional",
            factor,
            None,
            {"partial_rotary_factor": parameters.get("partial_rotary_factor", 1.0)},
        )
    factor = parameters.get("factor")
    original = parameters.get("original_max_position_embeddings")
    if rope_type == "longrope" and factor is None and original and longest:
        factor = longest / original
    extra = {
        key: parameters[key]
        for key in (
            "low_freq_factor",
            "high_freq_factor",
            "beta_fast",
            "beta_slow",
            "mscale",
            "mscale_all_dim",
            "truncate",
            "attention_factor",
        )
        if key in parameters
    }
    return Scaling(rope_type, None if factor is None else float(factor), original, extra)


def _validate(
    config: JSONObject,
    kind: str,
    parameters: JSONObject,
    given: JSONObject,
    named: str,
    head_dim: int,
    longest: int | None,
) -> tuple[list[str], list[str]]:
    """Problems (what a release of transformers raises on) and notes (what it warns)."""
    problems: list[str] = []
    notes: list[str] = []
    rope_type = parameters["rope_type"]
    keys = set(given) - {"type", "rope_type", "rope_theta", "partial_rotary_factor"}
    for version, required in _REQUIRED.items():
        needed = required.get(rope_type, set())
        have = set(given) | (
            {"original_max_position_embeddings"} if version == "5.17.0" else set()
        )  # v5's standardize_rope_params fills it before validating
        missing = needed - have
        if missing:
            problems.append(
                f"transformers {version} rejects this rope_scaling: KeyError, missing required "
                f"keys {sorted(missing)} for rope_type {rope_type!r}"
            )
    unknown = keys - _KNOWN_KEYS.get(rope_type, set()) - {"mrope_section"}
    if unknown:
        notes.append(
            f"keys transformers does not read for {rope_type!r} (it warns): {sorted(unknown)}"
        )
    if kind == "phi3" and given:
        problems.extend(_phi3_checks(config, given, head_dim))
    original = given.get(
        "original_max_position_embeddings", config.get("original_max_position_embeddings")
    )
    factor = given.get("factor")
    if isinstance(original, int) and isinstance(longest, int):
        if original > longest or (rope_type == "llama3" and original == longest):
            problems.append(
                f"original_max_position_embeddings {original} contradicts "
                f"max_position_embeddings {longest}: the original context must be shorter"
            )
        elif rope_type == "yarn" and isinstance(factor, numbers.Real):
            implicit = longest / original
            if implicit != 1 and not math.isclose(implicit, factor):
                problems.append(
                    f"YaRN factor {factor:g} contradicts max_position_embeddings / "
                    f"original_max_position_embeddings = {longest} / {original} = {implicit:g} "
                    f"(transformers uses the explicit factor; the attention factor follows it)"
                )
    if rope_type == "llama3":
        low, high = given.get("low_freq_factor"), given.get("high_freq_factor")
        if isinstance(low, numbers.Real) and isinstance(high, numbers.Real) and high <= low:
            notes.append(
                f"high_freq_factor {high:g} <= low_freq_factor {low:g}: no blended "
                f"band (transformers warns; Meta's reference asserts)"
            )
    if rope_type != named:
        notes.append(f"rope type {named!r} is read as {rope_type!r}")
    return problems, notes


def _phi3_checks(config: JSONObject, given: JSONObject, head_dim: int) -> list[str]:
    """Phi3Config._rope_scaling_validation (v4.57.1), which raises ValueError."""
    found = []
    if len(given) != 3:
        found.append(
            "transformers 4.57.1 rejects this Phi-3 rope_scaling (ValueError): it must "
            "have exactly the three fields type, short_factor and long_factor"
        )
    share = config.get("partial_rotary_factor", 1.0)
    hidden, heads = config.get("hidden_size"), config.get("num_attention_heads")
    if isinstance(hidden, int) and isinstance(heads, int):
        pairs = int(hidden // heads * share) // 2
        for key in ("short_factor", "long_factor"):
            value = given.get(key)
            if isinstance(value, list) and len(value) != pairs:
                found.append(
                    f"transformers rejects this Phi-3 rope_scaling (ValueError): "
                    f"{key} has {len(value)} entries, the rotated head has {pairs} pairs"
                )
    return found


def implied_frequencies(encoding: Encoding) -> np.ndarray | None:
    """The inv_freq an encoding implies (float64), or None (not RoPE)."""
    return encoding.details.get("inv_freq")


# --- Meta params.json ------------------------------------------------------------------------


def params_encodings(params: JSONObject, *, source: str = "params.json") -> list[Encoding]:
    """The encoding of Meta's ``params.json``: interleaved RoPE, Llama 3.1 scaling when
    ``use_scaled_rope`` (Meta's ``apply_scaling``: factor 8, or ``rope_scaling_factor``;
    bands 1 and 4, or ``rope_high_freq_factor``; from 8192).

    Examples
    --------
    >>> from sinpe.checkpoint.configs import params_encodings
    >>> [found] = params_encodings({"dim": 4096, "n_heads": 32, "rope_theta": 500000.0,
    ...                             "use_scaled_rope": True})
    >>> found.scaling.type, found.scaling.factor, found.pairing, found.rotary_dim
    ('llama3', 8.0, 'interleaved', 128)
    """
    dim = _integer(params.get("dim"), "dim", 2**24)
    heads = _integer(params.get("n_heads"), "n_heads")
    head_dim = dim // heads
    notes = []
    base_value = params.get("rope_theta")
    if base_value is None:
        base_value = DEFAULT_BASE
        notes.append(
            f"rope_theta not in params.json: Meta's ModelArgs default is 500000, "
            f"the Llama 2 code's {DEFAULT_BASE:g}; read as {DEFAULT_BASE:g}"
        )
    base = _number(base_value, "rope_theta")
    scaling = None
    parameters = {"rope_type": "default", "rope_theta": base}
    if params.get("use_scaled_rope"):
        factor = _number(params.get("rope_scaling_factor") or 8.0, "rope_scaling_factor")
        high = _number(params.get("rope_high_freq_factor") or 4.0, "rope_high_freq_factor")
        parameters.update(
            rope_type="llama3",
            factor=factor,
            low_freq_factor=1.0,
            high_freq_factor=high,
            original_max_position_embeddings=8192,
        )
        scaling = Scaling(
            "llama3", factor, 8192, {"low_freq_factor": 1.0, "high_freq_factor": high}
        )
    theta, _ = rope_init(parameters, head_dim)
    encoding = Encoding(
        source,
        "rope",
        base=base,
        scaling=scaling,
        head_dim=head_dim,
        rotary_dim=head_dim,
        pairing="interleaved",
        context=params.get("max_seq_len"),
        notes=notes,
        ladder=ladder(theta, head_dim, base, scaling),
        details={"attention_factor": 1.0, "inv_freq": theta},
    )
    found = [encoding]
    interval = params.get("nope_layer_interval")
    layers = params.get("n_layers")
    if interval is not None and layers is not None:
        interval = _integer(interval, "nope_layer_interval")
        layers = _integer(layers, "n_layers")
        nope = [i for i in range(layers) if (i + 1) % interval == 0]
        encoding.layers = [i for i in range(layers) if (i + 1) % interval]
        found.append(_nope(source, nope, []))
    encoding.summary = rope_summary(encoding)
    return found


# --- GGUF metadata -------------------------------------------------------------------------------


def gguf_encodings(
    metadata: Mapping[str, GGUFValue], tensor_names: Iterable[str], *, source: str = "gguf"
) -> list[Encoding]:
    """The encoding a GGUF's metadata declares (``[arch].rope.*``, ``context_length``,
    ``attention.max_alibi_bias``); ``tensor_names`` tells a learned table
    (``position_embd.weight``) apart.

    Examples
    --------
    >>> from sinpe.checkpoint.configs import gguf_encodings
    >>> meta = {"general.architecture": "qwen2", "qwen2.rope.freq_base": 1e6,
    ...         "qwen2.embedding_length": 896, "qwen2.attention.head_count": 14}
    >>> gguf_encodings(meta, [])[0].summary
    'RoPE, base 1e+06, no scaling, head_dim 64, all 64 dims rotated, pairing concat (split-half)'
    """
    arch = metadata.get("general.architecture")
    if not isinstance(arch, str):
        raise CheckpointError("the GGUF file has no general.architecture string")
    # the architecture's keys without its prefix: "rope.freq_base" is f"{arch}.rope.freq_base"
    keys = {k.removeprefix(f"{arch}."): v for k, v in metadata.items() if k.startswith(f"{arch}.")}
    context = _context(keys.get("context_length"), f"{arch}.context_length")
    names = set(tensor_names)
    rope_kind = next((k for k, archs in GGUF_ROPE_TYPES.items() if arch in archs), None)

    def found(kind: str, summary: str, **details: object) -> list[Encoding]:
        shown = {"architecture": arch, **details}
        return [Encoding(source, kind, summary=summary, context=context, details=shown)]

    if arch in _GGUF_ALIBI or keys.get("attention.max_alibi_bias"):
        bias = keys.get("attention.max_alibi_bias", 8.0)
        return found(
            "alibi", f"ALiBi (architecture {arch}), max_alibi_bias {bias:g}", max_alibi_bias=bias
        )
    if "position_embd.weight" in names:
        return found(
            "learned", f"learned absolute positions, position_embd.weight (architecture {arch})"
        )
    if arch in ("t5", "t5encoder"):
        return found("relative-bias", f"T5 relative attention bias (architecture {arch})")
    if rope_kind == "NONE":
        return found(
            "unknown",
            f"architecture {arch}: llama.cpp runs no RoPE, and no position tensor or ALiBi key "
            f"says what it runs",
        )
    return [_gguf_rope(keys, arch, rope_kind, context, source)]


def _gguf_rope(
    keys: dict[str, GGUFValue], arch: str, rope_kind: str | None, context: int | None, source: str
) -> Encoding:
    notes = []
    base = keys.get("rope.freq_base")
    if base is None:
        base = DEFAULT_BASE
        notes.append(f"{arch}.rope.freq_base not set: llama.cpp defaults to {DEFAULT_BASE:g}")
    base = _number(base, f"{arch}.rope.freq_base")
    width, heads = keys.get("embedding_length"), keys.get("attention.head_count")
    head_dim = keys.get("attention.key_length")
    if head_dim is None and width is not None and heads is not None:
        head_dim = _integer(width, f"{arch}.embedding_length", 2**24) // _integer(
            heads, f"{arch}.attention.head_count"
        )
    elif head_dim is not None:
        head_dim = _integer(head_dim, f"{arch}.attention.key_length")
    rotary = keys.get("rope.dimension_count", head_dim)
    if rotary is None:
        raise CheckpointError(
            f"the GGUF file has no {arch}.rope.dimension_count, and no embedding_length and "
            f"attention.head_count to derive the head width from"
        )
    rotary = _integer(rotary, f"{arch}.rope.dimension_count")
    scaling = _gguf_scaling(keys, arch, notes)
    pairing = "unknown" if rope_kind is None else _GGUF_PAIRING.get(rope_kind, "unknown")
    if pairing == "unknown":
        notes.append(
            f"pairing unknown: llama.cpp's llama_model_rope_type gives architecture "
            f"{arch!r} {'no fixed type' if rope_kind is None else rope_kind}"
        )
    sections = keys.get("rope.dimension_sections")
    theta = frequencies(rotary, base=base)
    if scaling is not None and scaling.type == "linear" and scaling.factor:
        theta = theta / scaling.factor
    elif (
        scaling is not None
        and scaling.type == "yarn"
        and scaling.factor
        and scaling.original_context
    ):
        yarn = {
            "rope_type": "yarn",
            "rope_theta": base,
            "factor": scaling.factor,
            "original_max_position_embeddings": scaling.original_context,
            "beta_fast": keys.get("rope.scaling.yarn_beta_fast"),
            "beta_slow": keys.get("rope.scaling.yarn_beta_slow"),
        }
        theta, _ = rope_init(yarn, rotary)
    encoding = Encoding(
        source,
        "rope",
        base=base,
        scaling=scaling,
        head_dim=head_dim,
        rotary_dim=rotary,
        pairing=pairing,
        context=context,
        notes=notes,
        ladder=ladder(theta, rotary, base, scaling),
        details={"architecture": arch, "inv_freq": theta},
    )
    if isinstance(sections, list):
        encoding.details["dimension_sections"] = sections
    encoding.summary = rope_summary(encoding)
    return encoding


def _gguf_scaling(keys: dict[str, GGUFValue], arch: str, notes: list[str]) -> Scaling | None:
    kind = keys.get("rope.scaling.type")
    factor = keys.get("rope.scaling.factor")
    legacy = keys.get("rope.scale_linear")
    original = keys.get("rope.scaling.original_context_length")
    if kind is None and legacy is not None:
        notes.append(f"the legacy key {arch}.rope.scale_linear: linear scaling by {legacy:g}")
        kind, factor = "linear", legacy
    if kind is None or kind == "none":
        return None
    if not isinstance(kind, str) or kind not in _GGUF_SCALING:
        raise CheckpointError(
            f"unknown {arch}.rope.scaling.type {kind!r}; llama.cpp knows {', '.join(_GGUF_SCALING)}"
        )
    extra = {
        name.rsplit(".", 1)[1]: keys[name]
        for name in (
            "rope.scaling.attn_factor",
            "rope.scaling.yarn_log_multiplier",
            "rope.scaling.yarn_ext_factor",
            "rope.scaling.yarn_attn_factor",
            "rope.scaling.yarn_beta_fast",
            "rope.scaling.yarn_beta_slow",
            "rope.scaling.finetuned",
        )
        if name in keys
    }
    return Scaling(
        kind,
        None if factor is None else _number(factor, f"{arch}.rope.scaling.factor"),
        _context(original, f"{arch}.rope.scaling.original_context_length"),
        extra,
    )
