"""The pass pipeline over a kernel module (pyasc: ``asc._C.passes``).

``PassManager(context)`` collects passes (``ascendc.add_*(pm)``, ``common.add_*(pm)``) and ``run(module)``
runs them in order. A kernel reaches the pipeline finished by libasc, so most of pyasc's passes have their
work done already (each such pass's docstring says where); those run as no-ops, listed in ``pm.passes`` with
``done_by="libasc"``, so a printed pipeline shows every step.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable, Optional

from . import ascendc, common

__all__ = ["Pass", "PassManager", "ascendc", "common"]


@dataclass(frozen=True)
class Pass:
    name: str
    run: Optional[Callable[[Any], None]]  # None: libasc did the step when it finished the kernel
    done_by: str = "asc._C"


class PassManager:
    def __init__(self, context: Any = None):
        self.context = context  # libasc's kernels need no context; kept for pyasc's signature
        self.passes: list[Pass] = []
        self.verify = False
        self.printing = False

    def add(self, name: str, run: Optional[Callable[[Any], None]]) -> None:
        self.passes.append(Pass(name, run, "asc._C" if run is not None else "libasc"))

    def enable_verifier(self) -> None:
        """Check the module is a live finished kernel before and after the passes (libasc's verifier ran when
        it was finished)."""
        self.verify = True

    def enable_printing(self) -> None:
        """Print the module's IR before each pass (pyasc: print_ir_before_all), to stderr."""
        self.printing = True

    def run(self, module: Any) -> None:
        if self.verify:
            module.text()  # raises for a kernel handle libasc does not know
        for p in self.passes:
            if self.printing:
                sys.stderr.write(f"// -----// IR before {p.name} ({p.done_by}) //----- //\n{module}\n")
            if p.run is not None:
                p.run(module)
        if self.verify:
            module.text()
