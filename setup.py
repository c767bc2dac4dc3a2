"""Only the optional C accelerator lives here; everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("rulekit._fastpath", ["rulekit/_fastpath.c"], optional=True,
                             extra_compile_args=["-O3"])])
