"""The solver's optional C extension (everything else is in pyproject.toml).

``optional=True``: a machine without a C compiler or Python headers still installs, and the
solver runs its pure-Python code (see solver/notty/_impl.py).
"""

import os
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class ReplacingBuildExt(build_ext):
    """Puts the built module in the source tree (``pip install -e .``) by replacing the old file,
    never writing into it: a running process that loaded the old one keeps it intact."""

    def copy_file(self, infile: str, outfile: str, *args: Any, **kwargs: Any) -> Any:
        if self.dry_run or os.path.isdir(outfile):
            return super().copy_file(infile, outfile, *args, **kwargs)
        partial = f"{outfile}.{os.getpid()}.partial"
        _, copied = super().copy_file(infile, partial, *args, **kwargs)
        os.replace(partial, outfile)
        return outfile, copied


setup(
    cmdclass={"build_ext": ReplacingBuildExt},
    ext_modules=[
        Extension(
            "solver.notty._native",
            ["solver/notty/_native.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ],
)
