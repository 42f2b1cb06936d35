"""The asctile names whose semantics the Model does not have yet: each raises NotOnTheModelError (a
CodegenError and a NotImplementedError) naming itself and saying what is missing. docs/tile-api.md lists
them."""

from ._errors import not_on_the_model

gather = not_on_the_model("gather", "indexed rows from GM need a gather-by-index tile load asc2 does not have")
scatter = not_on_the_model("scatter", "indexed rows into GM need a scatter-by-index tile store asc2 does not have")
cv_strategy = not_on_the_model("cv_strategy", "splitting tiles over a cube core's vector sub-blocks "
                                              "(cv_ratio=2) is not modelled for tile kernels")  # fmt: skip
inline = not_on_the_model("inline", "the Model runs instructions, not raw Ascend C text")
inline_vf = not_on_the_model("inline_vf", "the Model runs instructions, not raw Ascend C vector-function text")

__all__ = ["cv_strategy", "gather", "inline", "inline_vf", "scatter"]
