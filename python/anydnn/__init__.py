"""anydnn: MIOpen's convolution and batch normalization on NumPy arrays and PyTorch tensors.

The same library as the C API (libMIOpen), on any x86 CPU (backend "cpu") and on NVIDIA GPUs
(backend "cuda", when the package was built with it). Arrays pass without copies through DLPack.

    import numpy as np, anydnn
    x = np.random.rand(1, 3, 8, 8).astype(np.float32)
    w = np.random.rand(4, 3, 3, 3).astype(np.float32)
    y = anydnn.conv_forward(x, w, padding=1)

PyTorch modules backed by anydnn are in anydnn.torch (imported on demand).
"""

from ._errors import Error
from ._ext import Handle, miopen_version
from .distributed import ConvProblem, tune
from .rnn import RNN
from .ops import (
    Algorithm,
    Solution,
    batch_norm_backward,
    batch_norm_inference,
    batch_norm_training,
    conv_backward_bias,
    conv_backward_data,
    conv_backward_weights,
    conv_bias_forward,
    conv_forward,
    conv_output_shape,
    conv_solutions,
    default_handle,
    find,
)

__version__ = "0.1.0"

__all__ = [
    "Algorithm",
    "ConvProblem",
    "Error",
    "Handle",
    "RNN",
    "Solution",
    "__version__",
    "backend",
    "backends",
    "batch_norm_backward",
    "batch_norm_inference",
    "batch_norm_training",
    "conv_backward_bias",
    "conv_backward_data",
    "conv_backward_weights",
    "conv_bias_forward",
    "conv_forward",
    "conv_output_shape",
    "conv_solutions",
    "default_handle",
    "find",
    "tune",
    "miopen_version",
]


def backend(array=None) -> str:
    """The backend that runs `array` ("cuda" for a CUDA tensor, else "cpu"), or with no array the
    one host arrays use ("cpu")."""
    from .ops import _device

    return _device(array)[0] if array is not None else default_handle().backend


def backends() -> tuple:
    """The backends this build can run here: ("cpu",), plus "cuda" where the library was built
    with the CUDA backend and a GPU is usable."""
    from . import _ext

    if not _ext.built_with_cuda:
        return ("cpu",)
    try:
        Handle("cuda", 0)
        return ("cpu", "cuda")
    except Error:
        return ("cpu",)
