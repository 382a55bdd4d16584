"""Which machine a benchmark ran on: printed at the top of every benchmark."""

from __future__ import annotations

import os
import platform


def facts() -> list[tuple[str, str]]:
    cpu = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return [
        ("platform", platform.platform()),
        ("cpu", cpu),
        ("cores", f"{os.cpu_count()} logical ({usable} usable)"),
        ("python", f"{platform.python_implementation()} {platform.python_version()}"),
    ]


def describe() -> str:
    return "; ".join(f"{key} {value}" for key, value in facts())
