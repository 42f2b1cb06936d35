"""The asctile names whose semantics the Model does not have yet: each raises NotOnTheModelError (a
CodegenError and a NotImplementedError) naming itself and saying what is missing. docs/tile-api.md lists
them."""

from ._errors import not_on_the_model

inline = not_on_the_model("inline", "the Model runs instructions, not raw Ascend C text")
inline_vf = not_on_the_model("inline_vf", "the Model runs instructions, not raw Ascend C vector-function text")

__all__ = ["inline", "inline_vf"]
