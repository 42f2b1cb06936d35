"""The compile errors by the module path pyasc gives them (``asc.codegen.errors``); they are asc.errors'."""

from ..errors import CodegenError, UnsupportedSyntaxError

__all__ = ["CodegenError", "UnsupportedSyntaxError"]
