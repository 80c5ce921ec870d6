"""Gymnasium's check_env and PettingZoo's api_test with their warning-level checks as failures.

Many of their checks only warn (an observation's dtype other than its space's, a reward's type):
silenced, a test passed with the space declared int16 and the observations int8. UserWarning
(both libraries' category for their checks) fails the test here; other categories, a library's
DeprecationWarning, do not."""
import warnings

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

# PettingZoo's advice for every Dict observation space (ours holds the observation and the
# action mask, as its own classic environments' do), not a finding about this environment
DICT_SPACE_ADVICE = ("Observation is not a NumPy array",
                     "Observation space for each agent probably should be")


def check_env_strictly(env, **kwargs) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        check_env(env, **kwargs)


def api_test_strictly(env, **kwargs) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        for advice in DICT_SPACE_ADVICE:
            warnings.filterwarnings("ignore", message=advice)
        api_test(env, **kwargs)
