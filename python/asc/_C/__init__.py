"""The stages of the NPU build, under the names pyasc gives its compiled extension (``asc._C``).

pyasc's ``asc._C`` is an MLIR extension: ``ir`` (the module), ``passes`` (the pass pipeline), ``translation``
(MLIR to Ascend C). Ours is pure Python over libasc's C ABI, and a kernel reaches it already finished
(``asc_builder_finish`` verified it, lowered the framework, allocated local memory and inserted sync):

* ``ir.KernelModule`` is a finished kernel seen as a module; ``ir.get_kernel_arg_attrs`` its parameters;
* ``passes`` the pass pipeline ``asc.runtime.compiler.Compiler`` schedules: a pass either does its step here
  (detecting the kernel type and debug printing, stripping locations) or, where libasc did it while building
  the kernel, says so in its docstring and checks nothing;
* ``translation.ir_to_ascendc`` the kernel's Ascend C, from libasc's emitter (``asc_kernel_source``).

``Compiler.run`` calls each stage through these modules' attributes, so a test can patch any of them, as
pyasc's unit tests do.
"""

from . import ir, passes, translation

__all__ = ["ir", "passes", "translation"]
