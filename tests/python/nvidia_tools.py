"""NVIDIA's pip wheels of CUDA tools (nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm) put them
in site-packages/nvidia/cu13/bin; .ci/deps.sh installs them into its venv, because the CPU
machines' CUDA has nvcc but neither tool."""
import os
import site
import sys
from pathlib import Path


def wheel_bins_on_path() -> None:
    """Append the wheels' bin folders of this Python to PATH (after the system's tools)."""
    roots = [*site.getsitepackages(), *sys.path]
    found = [str(b) for b in dict.fromkeys(Path(r) / "nvidia" / cu / "bin" for r in roots for cu in ("cu13", "cu12"))
             if b.is_dir()]
    path = os.environ.get("PATH", "").split(os.pathsep)
    os.environ["PATH"] = os.pathsep.join(path + [b for b in found if b not in path])
