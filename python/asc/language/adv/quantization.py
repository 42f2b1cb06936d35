"""asc.adv.quant: Ascend C's AscendQuant, float16/float32 to int8, built from the basic vector instructions over
the temporary buffer as the library does on Atlas A2 (library.py says how).

The documented method (https://www.hiascend.com/document/detail/en/canncommercial/850/API/ascendcopapi/
atlasascendc_api_07_0817.html): everything is computed in float16 — a float32 source, scale or offset is first
converted to float16 (round to nearest even) —, then ``Muls``/``Mul`` by the scale, ``Adds``/``Add`` of the offset
(each result rounded to float16, saturating) and a cast to int8 rounding half to even and saturating to
[-128, 127]:

* per tensor: ``dst[i] = int8(half(half(half(src[i]) * half(scale)) + half(offset)))``;
* per channel (src of shape [m, n], scale and offset tensors of shape [n]):
  ``dst[i][j] = int8(half(half(half(src[i][j]) * half(scale[j])) + half(offset[j])))``, ``offset`` a tensor or a
  scalar.

The work goes in chunks of as many float16 elements as the temporary buffer holds (a multiple of 32: 64 bytes at
least), per channel within each row of ``scale_count`` elements."""

from __future__ import annotations

from typing import Any, Optional

import asc  # numpy is imported where a numpy value is read: `import asc` does not import it

from ...codegen.context import current_builder
from ...errors import CodegenError
from ...runtime.jit import jit
from ..basic.utils import builtin, require_local
from ..core import dtype as dt
from ..core.enums import RoundMode
from ..core.ir_value import Scalar, cast, const, to_int
from ..core.tensor import LocalTensor
from .library import count_of, inline, library_call, require, temp_buffer_of
from .types import QuantConfig

_API = "adv.quant"
_HALF_MAX = 65504.0
# the chunk granule: Ascend C cuts the temporary buffer in multiples of ONE_BLK_SIZE (32) float16 elements
_GRANULE = 32


@jit
def _quant_per_tensor(dst: Any, src: Any, work: Any, count: Any, per: Any, scale: Any, offset: Any, widen: Any):
    """dst[:count] = int8(work), work = src * scale + offset in float16, `per` elements at a time."""
    for start in asc.range(0, count, per):
        n = count - start
        if n > per:
            n = per + 0
        if widen:
            asc.cast(work, src[start:], RoundMode.CAST_NONE, n)
            asc.muls(work, work, scale, n)
        else:
            asc.muls(work, src[start:], scale, n)
        asc.adds(work, work, offset, n)
        asc.cast(dst[start:], work, RoundMode.CAST_NONE, n)


@jit
def _quant_per_channel(dst: Any, src: Any, work: Any, rows: Any, channels: Any, per: Any, scale: Any, offset: Any,
                       widen: Any, offset_tensor: Any):  # fmt: skip
    """Row r of `channels` elements: dst = int8(src * scale[:channels] + offset) in float16 (scale and a tensor
    offset already float16), `per` elements at a time."""
    for r in asc.range(0, rows):
        base = r * channels
        for start in asc.range(0, channels, per):
            n = channels - start
            if n > per:
                n = per + 0
            if widen:
                asc.cast(work, src[base + start :], RoundMode.CAST_NONE, n)
                asc.mul(work, work, scale[start:], n)
            else:
                asc.mul(work, src[base + start :], scale[start:], n)
            if offset_tensor:
                asc.add(work, work, offset[start:], n)
            else:
                asc.adds(work, work, offset, n)
            asc.cast(dst[base + start :], work, RoundMode.CAST_NONE, n)


def _half_parameter(value: Any, what: str, c_type: dt.DataType) -> tuple[Scalar, Scalar]:
    """(the value as Ascend C's parameter of `c_type` receives it, the float16 the library computes with)."""
    import numpy as np

    if isinstance(value, bool):
        raise CodegenError(f"{_API}: {what} must be a number, got {value!r}")
    if isinstance(value, (int, float)):
        as_c = float(np.float32(value)) if c_type == dt.float32 else float(np.float16(value))
        if not np.isfinite(as_c) or abs(as_c) > _HALF_MAX:
            raise CodegenError(
                f"{_API}: {what} {value!r} is outside float16's range (±{_HALF_MAX:g}): the library computes in float16"
            )
        return const(as_c, c_type), const(float(np.float16(as_c)), dt.float16)
    if isinstance(value, Scalar) and (value.dtype.is_float() or value.dtype.is_int()):
        as_c = cast(value, c_type)
        return as_c, cast(as_c, dt.float16)
    raise CodegenError(f"{_API}: {what} must be a number or a run-time scalar, got {type(value).__name__}")


def _config_name(config: QuantConfig) -> str:
    """A declaration of the config (a reference template argument must name an object of static storage) and its
    name, unique in the kernel."""
    builder = current_builder()
    index = getattr(builder, "quant_configs", 0)
    builder.quant_configs = index + 1
    name = f"asc_quant_cfg{index}"
    values = ", ".join(str(v) for v in config.fields())
    return f"AscendC::AscendQuantConfig constexpr static {name}{{{{{values}}}}}; ", name


def _local_param(value: Any, what: str, dtype: dt.DataType) -> LocalTensor:
    t = require_local(value, _API, what)
    if t.dtype != dtype:
        raise CodegenError(f"{_API}: {what} must hold {dtype.name} as src does, got {t.dtype.name}")
    return t


def _chunk(tmp: LocalTensor, config_bytes: int) -> Any:
    """float16 elements per chunk: the caller's buffer (or config.work_local_size bytes of it), in granules."""
    if config_bytes:
        per = config_bytes // 2 // _GRANULE * _GRANULE
        if per == 0:
            raise CodegenError(f"{_API}: QuantConfig work_local_size {config_bytes} is under 64 bytes (one chunk)")
        require(
            tmp.get_size() >= config_bytes,
            f"{_API}: QuantConfig work_local_size {config_bytes} is larger than the temporary buffer",
        )
        return per
    per = tmp.get_size() // (2 * _GRANULE) * _GRANULE
    require(per > 0, f"{_API}: the temporary buffer holds fewer than 64 bytes; it needs at least 64 (32 float16)")
    return per


@builtin
def quant(dst: Any, src: Any, scale: Any, offset: Any, count: Optional[Any] = None, temp_buffer: Optional[Any] = None,
          reuse_source: bool = False, config: Optional[QuantConfig] = None, scale_count: Optional[Any] = None,
          offset_count: Optional[Any] = None) -> None:  # fmt: skip
    """Ascend C ``AscendQuant``: dst (int8) = round(src * scale + offset) computed in float16 (module docstring).

    Per tensor: `scale` and `offset` numbers or run-time scalars. Per channel: `scale` a LocalTensor of src's
    dtype (shape [n]) and `offset` a scalar or a LocalTensor like it; ``scale_count`` (``offset_count``) channels
    of them are used (all of the tensor when None), `count` must be a multiple of them. `count` elements of src
    (all when None); `temp_buffer` a uint8 LocalTensor (the framework's buffer when None); `config` an
    asc.adv.QuantConfig of compile-time counts. A float32 scale (offset) tensor is converted to float16 in place
    first, as the library does: its contents change."""
    d = require_local(dst, _API, "dst")
    s = require_local(src, _API, "src")
    if d.dtype != dt.int8:
        raise CodegenError(f"{_API}: dst must be an int8 LocalTensor, got {d.dtype.name}")
    if s.dtype not in (dt.float16, dt.float32):
        raise CodegenError(f"{_API}: src must be float16 or float32, got {s.dtype.name}")
    if not isinstance(reuse_source, bool):
        raise CodegenError(f"{_API}: reuse_source must be True or False (a compile-time constant)")
    if config is not None and not isinstance(config, QuantConfig):
        raise CodegenError(f"{_API}: config must be an asc.adv.QuantConfig, got {type(config).__name__}")
    per_channel = isinstance(scale, LocalTensor)
    if not per_channel and isinstance(offset, LocalTensor):
        raise CodegenError(f"{_API}: an offset tensor needs a scale tensor (the per-channel form)")
    if not per_channel and (scale_count is not None or offset_count is not None):
        raise CodegenError(f"{_API}: scale_count and offset_count belong to the per-channel form (a scale tensor)")
    tmp_given = temp_buffer is not None
    tmp = temp_buffer_of(temp_buffer, _API)
    widen = s.dtype == dt.float32
    cfg = config or QuantConfig()
    declaration, template = "", f"{{T:1}}, {'true' if reuse_source else 'false'}"
    if config is not None:
        declaration, name = _config_name(config)
        template += f", {name}"
    operands: list = [d, s]
    args = ["{0}", "{1}"]

    def operand(value: Any) -> None:
        operands.append(value)
        args.append(f"{{{len(operands) - 1}}}")

    if tmp_given:
        operand(tmp)
    if not per_channel:
        scale_c, scale_h = _half_parameter(scale, "scale", dt.float32)
        offset_c, offset_h = _half_parameter(offset, "offset", dt.float32)
        operand(scale_c)
        operand(offset_c)
        n = count_of(count, s, _API)
        if count is not None:
            operand(n)
        constant = cfg.calc_count != 0 and cfg.work_local_size != 0  # Ascend C's compile-time counts

        def expansion() -> None:
            require(n <= s.get_size(), f"{_API}: count is larger than src")
            if cfg.calc_count:
                require(s.get_size() >= cfg.calc_count, f"{_API}: QuantConfig calc_count is larger than src")
            total = const(cfg.calc_count, dt.int32) if constant else n
            per = _chunk(tmp, cfg.work_local_size if constant else 0)
            work = tmp.reinterpret_cast(dt.float16)
            inline(_quant_per_tensor, d, s, work, total, per, scale_h, offset_h, widen)

    else:
        sc_t = _local_param(scale, "scale", s.dtype)
        off_t = _local_param(offset, "offset", s.dtype) if isinstance(offset, LocalTensor) else None
        operand(sc_t)
        if off_t is not None:
            operand(off_t)
            offset_h = None
        else:
            offset_c, offset_h = _half_parameter(offset, "offset", s.dtype)
            operand(offset_c)
        counted = count is not None or scale_count is not None or offset_count is not None
        n = count_of(count, s, _API)
        sc = sc_t.get_size() if scale_count is None else to_int(scale_count, f"{_API} scale_count")
        oc = None
        if off_t is not None:
            oc = off_t.get_size() if offset_count is None else to_int(offset_count, f"{_API} offset_count")
        elif offset_count is not None:
            raise CodegenError(f"{_API}: offset_count belongs to the form with an offset tensor")
        if counted:
            operand(sc)
            if oc is not None:
                operand(oc)
            operand(n)
        constant = cfg.scale_count != 0 and cfg.calc_count != 0

        def expansion() -> None:
            _check_per_channel(s, sc_t, off_t, tmp, n, sc, oc, cfg)
            channels = const(cfg.scale_count, dt.int32) if constant else sc
            rows = const(cfg.calc_count // cfg.scale_count, dt.int32) if constant else n // sc
            per = _chunk(tmp, cfg.work_local_size if cfg.work_local_size and cfg.scale_count else 0)
            scale_h, off = sc_t, offset_h
            if widen:  # the library converts the parameters in place (their first half becomes float16)
                scale_h = sc_t.reinterpret_cast(dt.float16)
                asc.cast(scale_h, sc_t, RoundMode.CAST_NONE, channels)
                if off_t is not None:
                    off = off_t.reinterpret_cast(dt.float16)
                    asc.cast(off, off_t, RoundMode.CAST_NONE, channels)
            elif off_t is not None:
                off = off_t
            work = tmp.reinterpret_cast(dt.float16)
            inline(_quant_per_channel, d, s, work, rows, channels, per, scale_h, off, widen, off_t is not None)

    # with a config the statement starts with its declaration (of the AscendC:: type)
    call = f"{declaration}AscendC::AscendQuant<{template}>({', '.join(args)})"
    library_call(call, operands, expansion)


def _check_per_channel(s: LocalTensor, sc_t: LocalTensor, off_t: Optional[LocalTensor], tmp: LocalTensor, n: Any,
                       sc: Any, oc: Any, cfg: QuantConfig) -> None:  # fmt: skip
    """The library's preconditions of the per-channel forms (IsQuantParamValid, IsQuantConfigValid)."""
    require(n <= s.get_size(), f"{_API}: count is larger than src")
    require(sc <= sc_t.get_size(), f"{_API}: scale_count is larger than the scale tensor")
    require(sc > 0, f"{_API}: scale_count must not be 0")
    require(sc % 32 == 0, f"{_API}: scale_count must be a multiple of 32")
    if oc is not None:
        require(oc <= off_t.get_size(), f"{_API}: offset_count is larger than the offset tensor")
        require(oc == sc, f"{_API}: offset_count must equal scale_count")
    require(n > 0, f"{_API}: count must not be 0")
    require(n % sc == 0, f"{_API}: count must be a multiple of scale_count")
    if cfg.scale_count % 32:
        raise CodegenError(f"{_API}: QuantConfig scale_count {cfg.scale_count} is not a multiple of 32")
    if cfg.scale_count and cfg.calc_count % cfg.scale_count:
        raise CodegenError(
            f"{_API}: QuantConfig calc_count {cfg.calc_count} is not a multiple of scale_count {cfg.scale_count}"
        )
    if off_t is not None and cfg.offset_count != cfg.scale_count:
        raise CodegenError(f"{_API}: QuantConfig offset_count must equal scale_count")
    if cfg.calc_count:
        require(s.get_size() >= cfg.calc_count, f"{_API}: QuantConfig calc_count is larger than src")
    if cfg.scale_count:
        require(sc_t.get_size() >= cfg.scale_count, f"{_API}: QuantConfig scale_count is larger than the scale tensor")
    if cfg.work_local_size:
        require(tmp.get_size() >= cfg.work_local_size, f"{_API}: QuantConfig work_local_size is larger than the "
                "temporary buffer")  # fmt: skip
