"""asc.adv.concat and asc.adv.extract: Ascend C's Concat and Extract, which prepare the input of Sort and unpack
its result. On Atlas A2/A3 Sort and Sort32 build (score, index) structures of 8 bytes themselves (the score in
the low bytes — a float16's 2 bytes followed by 2 reserved —, the uint32 index in the high 4; see
asc.language.basic.proposal), so the two are what the library makes of them there, not the region proposals of
older chips:

* ``concat(dst, src, tmp, repeat_time)``: the scores need no preparation; the library makes `dst` the tensor
  `src` (Ascend C's ``concat = src``): afterwards the kernel's `dst` is `src` — no element is copied and `tmp`
  is not touched.
* ``extract(dst_value, dst_index, src, repeat_time)``: two GatherMask passes over the structures of `src`, each
  repeat 256 bytes (32 structures): the scores to dst_value (built-in pattern 3, one float16 of every four, for
  float16; pattern 1, the even float32 words, for float32) over ``repeat_time`` repeats, and the indices to
  dst_index (pattern 2, the odd uint32 words) over ``repeat_time`` repeats for float32 and ``2 * repeat_time``
  for float16, as the library's Atlas A2 code does.

Docs: https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0839.html
(Concat) and the Extract page next to it."""

from __future__ import annotations

from typing import Any

from ...errors import CodegenError
from ..basic.gather import gather_mask
from ..basic.utils import builtin, require_local
from ..core import dtype as dt
from ..core.ir_value import to_int
from ..core.layout_params import GatherMaskParams
from ..core.tensor import LocalTensor
from .library import library_call, require

_UB = ("VECIN", "VECOUT", "VECCALC")


def _ub(t: LocalTensor, api: str, role: str) -> None:
    if t.position.name not in _UB:
        raise CodegenError(f"{api}: {role} must be in the Unified Buffer (VECIN, VECOUT or VECCALC)")


def _scores(t: Any, api: str, role: str) -> LocalTensor:
    local = require_local(t, api, role)
    if local.dtype not in (dt.float16, dt.float32):
        raise CodegenError(f"{api}: {role} must hold float16 or float32 scores, got {local.dtype.name}")
    _ub(local, api, role)
    return local


def _repeat(value: Any, api: str) -> Any:
    """repeat_time, int32 in [0, 255]: checked while compiling when it is a number, when the kernel runs if not."""
    if isinstance(value, bool):
        raise CodegenError(f"{api}: repeat_time must be an integer, got {value!r}")
    if isinstance(value, int):
        if not 0 <= value <= 255:
            raise CodegenError(f"{api}: repeat_time must be in [0, 255], got {value}")
        return value
    return to_int(value, f"{api} repeat_time")


def _require_range(repeat: Any, api: str) -> None:
    require(repeat >= 0, f"{api}: repeat_time must be in [0, 255]")
    require(repeat <= 255, f"{api}: repeat_time must be in [0, 255]")


@builtin
def concat(dst: Any, src: Any, tmp: Any, repeat_time: Any) -> None:
    """Ascend C ``Concat`` on Atlas A2/A3: `dst` becomes `src` (module docstring); `tmp` (src's dtype) is
    unused there. `dst`, `src` and `tmp` are float16 or float32 LocalTensors in the Unified Buffer."""
    api = "adv.concat"
    d, s, t = _scores(dst, api, "dst"), _scores(src, api, "src"), _scores(tmp, api, "tmp")
    if d.dtype != s.dtype or t.dtype != s.dtype:
        raise CodegenError(
            f"{api}: dst, src and tmp must hold one dtype, got {d.dtype.name}, {s.dtype.name} and {t.dtype.name}"
        )
    repeat = _repeat(repeat_time, api)

    def expansion() -> None:
        if not isinstance(repeat, int):
            _require_range(repeat, api)

    library_call("AscendC::Concat({0}, {1}, {2}, {3})", [d, s, t, repeat], expansion)
    # Ascend C's `concat = src` through the reference parameter: the caller's tensor is src from here on
    d.handle, d.dtype, d.position = s.handle, s.dtype, s.position
    d._shape_info = s._shape_info


@builtin
def extract(dst_value: Any, dst_index: Any, src: Any, repeat_time: Any) -> None:
    """Ascend C ``Extract`` on Atlas A2/A3: the scores of src's (score, index) structures to `dst_value` (src's
    dtype) and their indices to `dst_index` (uint32), as two GatherMask passes (module docstring)."""
    api = "adv.extract"
    v, s = _scores(dst_value, api, "dst_value"), _scores(src, api, "src")
    i = require_local(dst_index, api, "dst_index")
    _ub(i, api, "dst_index")
    if i.dtype != dt.uint32:
        raise CodegenError(f"{api}: dst_index must be a uint32 LocalTensor, got {i.dtype.name}")
    if v.dtype != s.dtype:
        raise CodegenError(f"{api}: dst_value and src must hold one dtype, got {v.dtype.name} and {s.dtype.name}")
    repeat = _repeat(repeat_time, api)
    half = s.dtype == dt.float16

    def expansion() -> None:
        if not isinstance(repeat, int):
            _require_range(repeat, api)
        # 256 bytes (32 structures) a repeat, contiguous: block stride 1, repeat stride 8 blocks
        gather_mask(v, s, 3 if half else 1, False, 0, GatherMaskParams(1, repeat, 8, 0))
        words = s.reinterpret_cast(dt.uint32)
        gather_mask(i, words, 2, False, 0, GatherMaskParams(1, repeat * 2 if half else repeat, 8, 0))

    library_call("AscendC::Extract({0}, {1}, {2}, {3})", [v, i, s, repeat], expansion)
