"""The names of the modelled C library functions (library_models.py), which the layers
without z3 use, are exactly those the symbolic executor has a model for."""
from __future__ import annotations

from pytest_ctgen.library_models import MODELLED_FUNCTIONS, is_modelled
from pytest_ctgen.symbolic.libc import MODELS


def test_the_names_are_those_of_the_models() -> None:
    assert frozenset(MODELS) == MODELLED_FUNCTIONS


def test_a_function_of_the_users_own_of_a_modelled_name_is_not_modelled() -> None:
    assert is_modelled("strlen", library=True) and not is_modelled("strlen", library=False)
    assert is_modelled("exit", library=False)  # the harness intercepts it in any case
