"""Fresh random inputs every run (the seed is printed on failure, as the C++ suites do)."""
import os
import random

import numpy as np
import pytest


@pytest.fixture
def rng(request):
    seed = int(os.environ.get("ANYDNN_TEST_SEED", random.SystemRandom().randrange(2**31)))
    request.node.user_properties.append(("seed", seed))
    print(f"ANYDNN_TEST_SEED={seed}")
    return np.random.default_rng(seed)
