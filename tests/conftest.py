"""Settings for the whole suite.

Hypothesis's per-example deadline (200 ms) measures the machine, not the code: under load a
property example that takes 2 ms alone can take 2 s, and a flaky failure says nothing about
toolmend. Speed is measured in `bench/`, so the suite runs property tests without a deadline.
"""

from hypothesis import settings

settings.register_profile("toolmend", deadline=None)
settings.load_profile("toolmend")
