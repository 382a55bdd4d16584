"""Which machine a benchmark ran on: printed at the top of every benchmark."""

from __future__ import annotations

import os
import platform


def describe() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (
        f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} cores, "
        f"{platform.python_implementation()} {platform.python_version()}"
    )
