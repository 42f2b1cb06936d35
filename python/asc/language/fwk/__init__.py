"""asc.language.fwk: the TPipe/TQue/TBuf framework."""

from .tpipe import TBuf, TPipe, TQue, TQueBind, get_tpipe_ptr

__all__ = ["TBuf", "TPipe", "TQue", "TQueBind", "get_tpipe_ptr"]
