"""Golden values (float64, d = 8, p = 1) of the paper's and the n-1 formulas, and more.

Independent of sinpe: they were computed from the formulas of the sources and
are shared by several test modules.
"""

PAPER_INTERLEAVED = [
    0.8414709848,
    0.5403023059,
    0.0998334166,
    0.9950041653,
    0.0099998333,
    0.9999500004,
    0.0009999998,
    0.9999995000,
]
PAPER_CONCAT = [
    0.8414709848,
    0.0998334166,
    0.0099998333,
    0.0009999998,
    0.5403023059,
    0.9950041653,
    0.9999500004,
    0.9999995000,
]
N_MINUS_1_CONCAT = [
    0.8414709848,
    0.0463992235,
    0.0021544330,
    0.0001000000,
    0.5403023059,
    0.9989229760,
    0.9999976792,
    0.9999999950,
]
