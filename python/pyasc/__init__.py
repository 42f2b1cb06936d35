"""pyasc: the operator API. A Python function over numpy arrays, decorated with
@pyasc.operator("Name"), compiles on its first call to asc kernels: whole-array
statements to tiled vector code over all cores, contraction loop nests (matmul,
convolution) to the cube, window reductions (pooling) to the vector unit, and
any other loop nest to scalar code with a warning. See docs/operator-api.md."""

from .errors import OperatorError, SlowLoopWarning
from .operator import Operator, batch, compile, lookup, operator, register
from .tensor import Tensor, empty, from_numpy, tensor

__all__ = [
    "Operator",
    "OperatorError",
    "SlowLoopWarning",
    "Tensor",
    "batch",
    "compile",
    "empty",
    "from_numpy",
    "lookup",
    "operator",
    "register",
    "tensor",
]
