"""asc.language.fwk: the TPipe/TQue/TBuf/TBufPool framework."""

from .tbuf_pool import TBufPool
from .tpipe import TBuf, TPipe, TQue, TQueBind, get_tpipe_ptr

__all__ = ["TBuf", "TBufPool", "TPipe", "TQue", "TQueBind", "get_tpipe_ptr"]
