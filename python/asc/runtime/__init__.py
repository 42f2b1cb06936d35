"""The runtime: @asc.jit kernels (jit), their options (config, compiler) and the caches."""

from .disk_cache import register_code_package

__all__ = ["register_code_package"]
