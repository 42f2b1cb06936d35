"""How much temporary buffer each element-wise adv function's expansion works in: the one definition that the
device side cuts its chunks by (math.py) and that asc.lib.host's ``get_<fn>_max_min_tmp_size`` reports.

A function keeps `n` float32 intermediates per element of a chunk (its INTERMEDIATES entry); float16 input adds
two (the input widened and the result before its rounding). Chunks are whole 64-element repeats, so the least
buffer holds one repeat of them and the largest worth giving holds the whole input at once."""

from __future__ import annotations

REPEAT_ELEMENTS = 64  # one 256-byte vector repeat of float32
FLOAT_BYTES = 4

# float32 intermediates per element, by Ascend C API name.
INTERMEDIATES = {
    # trigonometric.py
    "Sin": 3, "Cos": 3, "Tan": 3, "Asin": 5, "Acos": 5, "Atan": 4,
    "Sinh": 2, "Cosh": 2, "Tanh": 3, "Asinh": 3, "Acosh": 3, "Atanh": 3,
    # elementary.py
    "Exp": 3, "Ceil": 1, "Floor": 1, "Trunc": 1, "Round": 1, "Frac": 1, "Sign": 1,
    "Erf": 9, "Erfc": 6, "Digamma": 8, "Lgamma": 9, "Power": 5,
}  # fmt: skip
# int32 Power's square-and-multiply keeps two more
POWER_INT32_INTERMEDIATES = 7
# the float16 forms widen the input and keep the result in float32 before rounding once
HALF_EXTRA = 2
# Power loads both operands as 32-bit values (and float16 keeps its result before rounding too)
BINARY_EXTRA = 2
BINARY_HALF_EXTRA = 3


def intermediates(api: str, type_size: int, type_is_int: bool = False) -> int:
    """float32 intermediates per element for `api` on elements of `type_size` bytes (int32 for Power's
    `type_is_int`)."""
    if api == "Power":
        base = POWER_INT32_INTERMEDIATES if type_is_int else INTERMEDIATES["Power"]
        return base + (BINARY_HALF_EXTRA if type_size == 2 else BINARY_EXTRA)
    n = INTERMEDIATES[api]
    return n + HALF_EXTRA if type_size == 2 else n


def min_max_bytes(api: str, elements: int, type_size: int, type_is_int: bool = False) -> tuple[int, int]:
    """(least, largest useful) temporary buffer in bytes for `elements` elements."""
    per_element = intermediates(api, type_size, type_is_int) * FLOAT_BYTES
    repeats = max(1, -(-elements // REPEAT_ELEMENTS))
    return per_element * REPEAT_ELEMENTS, per_element * REPEAT_ELEMENTS * repeats
