"""What an asynchronous stream's synchronize() reports for the launches it waited for: their printf
output (printed), their warnings (warned) and their first failure (raised)."""

from __future__ import annotations

import sys
import warnings
from typing import Any, Optional

from ..._ffi import lib, read_text
from ...errors import warning_category


def report_batch(stream: Any, error: Optional[Exception]) -> None:
    output = read_text(lib.asc_stream_last_output, stream.handle)
    if output:
        sys.stdout.write(output)
        sys.stdout.flush()
    if error is not None:
        raise error
    for text in read_text(lib.asc_stream_last_warnings, stream.handle).splitlines():
        if text:
            category = warning_category(text)
            warnings.warn(f"asynchronous launches: {text}", category, stacklevel=4)
