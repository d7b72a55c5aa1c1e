"""Fixtures of the USD import tests: writing inline .usda text whose right answer is known."""

import textwrap
import warnings

import pytest

pytest.importorskip("pxr")

#: Stage metadata of a metre, Z-up stage.


@pytest.fixture
def write_usda(tmp_path):
    """write_usda(text, name="stage.usda") -> path of a file holding the dedented text."""

    def write(text, name="stage.usda"):
        path = tmp_path / name
        path.write_text(textwrap.dedent(text).lstrip("\n"))
        return str(path)

    return write


@pytest.fixture
def quiet():
    """Silence UsdImportWarnings for tests that do not check them."""
    from newton_gym.usd import UsdImportWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UsdImportWarning)
        yield


from usd_helpers import HEADER, assert_fk_matches_authored, fingerprint  # noqa: E402,F401
